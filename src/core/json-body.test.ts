import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  JsonEncodingError,
  JsonTooDeepError,
  jsonProblemOf,
  locateJsonError,
  MalformedJsonError,
  MAX_JSON_DEPTH,
  parseJsonBody,
  pointAtJsonError,
} from './json-body.ts';

describe('locateJsonError', () => {
  const cases: [string, number | undefined][] = [
    ['{"a": 1} x', 9],
    ["{'a': 1}", 1],
    ['{"a": tt}', 7],
    ['[1, 2,, 3]', 6],
    ['{"a": ', undefined],
    ['"unterminated', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`finds the first bad character of ${JSON.stringify(text)}`, () => {
      assert.equal(locateJsonError(text), expected);
    });
  }
});

describe('pointAtJsonError', () => {
  it('shows the offending line and a caret under the spot', () => {
    const body = '{\n  "a": tt\n}';
    assert.equal(pointAtJsonError(new MalformedJsonError('bad', body, 10)), '  "a": tt\n        ^');
  });
  it('keeps long lines to a window around the spot', () => {
    const body = `{"a": "${'x'.repeat(200)}" y}`;
    const shown = pointAtJsonError(new MalformedJsonError('bad', body, body.length - 2));
    const [line, caret] = shown.split('\n');
    assert.ok(line!.length <= 80);
    assert.equal(line![caret!.length - 1], 'y');
  });
});

describe('parseJsonBody', () => {
  const parse = (text: string | Buffer): unknown => parseJsonBody(typeof text === 'string' ? Buffer.from(text) : text);
  const nest = (depth: number, open: string, close: string): string => `${open.repeat(depth)}1${close.repeat(depth)}`;

  it('reads 100 levels of nesting and refuses the 101st, naming its member', () => {
    assert.ok(parse(nest(MAX_JSON_DEPTH, '[', ']')));
    assert.throws(
      () => parse(nest(MAX_JSON_DEPTH + 1, '[', ']')),
      (error: unknown) => error instanceof JsonTooDeepError && error.key === '' && error.position === MAX_JSON_DEPTH,
    );
    assert.throws(
      () => parse(nest(MAX_JSON_DEPTH + 1, '{"a\\"b" :', '}')),
      (error: unknown) => error instanceof JsonTooDeepError && error.key === 'a"b',
    );
  });

  it('ignores brackets inside strings', () => {
    assert.deepEqual(parse(`{"a": "${'['.repeat(500)}"}`), { a: '['.repeat(500) });
  });

  it('reports whichever problem comes first in the text', () => {
    assert.throws(
      () => parse(`{"a": x, "b": ${'['.repeat(200)}`),
      (error: unknown) => error instanceof MalformedJsonError && !(error instanceof JsonTooDeepError) && error.position === 6,
    );
    assert.throws(
      () => parse(`{"b": ${'['.repeat(200)} x`),
      (error: unknown) => error instanceof JsonTooDeepError,
    );
    // Objects too: V8 words running out after `{` as a missing property name at the very end.
    assert.throws(
      () => parse(`{"b": ${'{"a":'.repeat(200)}`),
      (error: unknown) => error instanceof JsonTooDeepError && error.key === 'a',
    );
    assert.throws(
      () => parse(`{"b" ${'{"a":'.repeat(200)}`),
      (error: unknown) => error instanceof MalformedJsonError && !(error instanceof JsonTooDeepError) && error.position === 5,
    );
    // A complete value before the deep part: the bracket after it is the first problem, and not a depth one.
    assert.throws(
      () => parse(`1 ${'['.repeat(200)}`),
      (error: unknown) => error instanceof MalformedJsonError && !(error instanceof JsonTooDeepError) && error.position === 2,
    );
  });

  it('refuses invalid UTF-8 at the first bad byte, but keeps a genuine U+FFFD', () => {
    assert.deepEqual(parse('{"a": "\uFFFD"}'), { a: '\uFFFD' });
    const bad = Buffer.concat([Buffer.from('{"a": "\uFFFD'), Buffer.from([0xff]), Buffer.from('"}')]);
    assert.throws(
      () => parse(bad),
      (error: unknown) => error instanceof JsonEncodingError && error.position === 8,
    );
  });

  it('takes a blank body as no body', () => {
    assert.equal(parse(' \n'), undefined);
  });

  it('keeps a "__proto__" member an own member, never the prototype', () => {
    const parsed = parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.deepEqual(Object.keys(parsed), ['__proto__']);
  });
});

describe('jsonProblemOf', () => {
  it('finds where JSON text goes wrong, as a line and column, and nothing in valid JSON', () => {
    assert.equal(jsonProblemOf('{"a": [1, 2, {"b": null}], "c": "\\u00e9"}'), undefined);
    assert.deepEqual(pick(jsonProblemOf('{"a": 1,\n "b" 2}')), { line: 2, column: 6 });
    assert.deepEqual(pick(jsonProblemOf('[1, 2')), { line: 1, column: 6 });
    assert.deepEqual(pick(jsonProblemOf('"a\\q"')), { line: 1, column: 4 });
    assert.deepEqual(pick(jsonProblemOf('{} x')), { line: 1, column: 4 });
    assert.match(jsonProblemOf('{} x')!.message, /JSON/);
  });
  const pick = (problem: { line: number; column: number } | undefined) => (problem === undefined ? undefined : { line: problem.line, column: problem.column });
});
