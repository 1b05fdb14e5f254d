import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goParseBool, goQuote, parseInt64, queryFlag, uint64Problem } from './query-values.ts';
import { StatusError } from './status.ts';

const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof StatusError);
    assert.equal(error.httpStatus, 400);
    return error.message;
  }
  assert.fail('no error');
};

describe('query values as the apiserver decodes them', () => {
  it('reads a boolean parameter as false only for 0 and false in any case, true for anything else present', () => {
    for (const value of ['0', 'false', 'False', 'FALSE', 'fAlSe', 'falſe']) assert.equal(queryFlag(value), false, value);
    for (const value of ['1', 'true', 'True', 'TRUE', 'yes', 't', '', 'no', '00', ' false']) assert.equal(queryFlag(value), true, JSON.stringify(value));
    assert.equal(queryFlag(undefined), undefined);
  });

  it('reads pretty with strconv.ParseBool, which knows six spellings each way', () => {
    for (const value of ['1', 't', 'T', 'true', 'TRUE', 'True']) assert.equal(goParseBool(value), true, value);
    for (const value of ['0', 'f', 'F', 'false', 'FALSE', 'False']) assert.equal(goParseBool(value), false, value);
    for (const value of ['yes', 'tRUE', '2', '']) assert.equal(goParseBool(value), undefined, value);
  });

  it('reads int64 parameters as strconv.ParseInt, out of range and invalid syntax with its texts', () => {
    assert.equal(parseInt64('9223372036854775807'), 2n ** 63n - 1n);
    assert.equal(parseInt64('-9223372036854775808'), -(2n ** 63n));
    assert.equal(parseInt64('+007'), 7n);
    assert.equal(
      messageOf(() => parseInt64('9223372036854775808')),
      'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
    assert.equal(
      messageOf(() => parseInt64('9'.repeat(200))),
      `strconv.ParseInt: parsing "${'9'.repeat(200)}": value out of range`,
    );
    for (const value of ['', '1.5', '1e3', 'Infinity', '0x10', '1_000', ' 1', '--1']) {
      assert.equal(
        messageOf(() => parseInt64(value)),
        `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`,
        value,
      );
    }
  });

  it('checks uint64 values as strconv.ParseUint: no sign, no decimals, below 2^64', () => {
    assert.equal(uint64Problem('18446744073709551615'), undefined);
    assert.equal(uint64Problem('18446744073709551616'), 'value out of range');
    assert.equal(uint64Problem('1'.repeat(200)), 'value out of range');
    for (const value of ['-1', '+1', '1.0', 'Infinity', '', '1e5']) assert.equal(uint64Problem(value), 'invalid syntax', value);
  });

  it('quotes values as strconv.Quote in those errors', () => {
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goQuote('\n\t\x01\x7f'), '"\\n\\t\\x01\\x7f"');
    assert.equal(goQuote('é∞😀'), '"é∞😀"');
    assert.equal(goQuote('\u00a0\u200b'), '"\\u00a0\\u200b"');
  });
});
