import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64Decode, lowerAscii, upperAscii, urlDecode, urlDecodeUni, utf8ToUnicode } from './string-functions.ts';

describe('the rules-language string functions', () => {
  it('lower and upper map ASCII letters only', () => {
    assert.equal(lowerAscii('TEST.Example.COM'), 'test.example.com');
    assert.equal(upperAscii('wordPress/6'), 'WORDPRESS/6');
    assert.equal(lowerAscii('ÄÖ'), 'ÄÖ');
    assert.equal(upperAscii('straße'), 'STRAßE');
  });

  it('base64Decode accepts the URL-safe alphabet and missing padding, and gives "" for invalid input', () => {
    assert.equal(base64Decode('bXlWYWx1ZQ=='), 'myValue');
    assert.equal(base64Decode('bXlWYWx1ZQ'), 'myValue');
    assert.equal(base64Decode('_-8'), '\ufffd\ufffd');
    assert.equal(base64Decode('w6k'), 'é');
    assert.equal(base64Decode('!!not base64'), '');
    assert.equal(base64Decode('a'), '');
    assert.equal(base64Decode('YQ=x'), '');
    assert.equal(base64Decode(''), '');
  });

  it('urlDecode decodes %XX and +, and keeps invalid escapes as written', () => {
    assert.equal(urlDecode('q=%3c'), 'q=<');
    assert.equal(urlDecode('a+b%20c'), 'a b c');
    assert.equal(urlDecode('%zz%4'), '%zz%4');
    assert.equal(urlDecode('Match%u002BValue'), 'Match%u002BValue');
  });

  it('urlDecodeUni also decodes %uXXXX', () => {
    assert.equal(urlDecodeUni('Match%u002BValue'), 'Match+Value');
    assert.equal(urlDecodeUni('Match%2BValue'), 'Match+Value');
    assert.equal(urlDecodeUni('%u00ac'), '¬');
    assert.equal(urlDecodeUni('%u00g1'), '%u00g1');
  });

  it('utf8ToUnicode writes each non-ASCII code point as one lower-case %u with all its hex digits (cel-expr/cloud-armor-rules)', () => {
    const table: readonly (readonly [input: string, output: string])[] = [
      ['plain', 'plain'],
      ['', ''],
      ['¬', '%u00ac'],
      ['a€b', 'a%u20acb'],
      // The upstream engine's own case (cloudarmor_test.go, "query decode utf8 to unicode success").
      ['Ā ā Ă ă Ѐ Ё Ā\\nā a\\x83t', '%u0100 %u0101 %u0102 %u0103 %u0400 %u0401 %u0100\\n%u0101 a\\x83t'],
      ['\u0080\u07ff\u0800\uffff', '%u0080%u07ff%u0800%uffff'],
      ['😀', '%u1f600'],
      ['\u{10000}\u{fffff}\u{100000}\u{10ffff}', '%u10000%ufffff%u100000%u10ffff'],
      // A lone surrogate has no UTF-8: it is U+FFFD, as an invalid byte is.
      ['x\ud800y\udfff', 'x%ufffdy%ufffd'],
      ['\ufffd', '%ufffd'],
      ['\x7f\x00', '\x7f\x00'],
    ];
    for (const [input, output] of table) assert.equal(utf8ToUnicode(input), output, JSON.stringify(input));
  });

  it('the decoders read the bytes they produce as UTF-8, so utf8ToUnicode sees the characters', () => {
    const table: readonly (readonly [decoded: string, output: string])[] = [
      [urlDecode('%C2%AC'), '%u00ac'],
      [urlDecode('%F0%9F%98%80'), '%u1f600'],
      [urlDecode('%AC'), '%ufffd'],
      [urlDecode('%E2%82A'), '%ufffd%ufffdA'],
      [urlDecode('é%41'), '%u00e9A'],
      [urlDecodeUni('%u00ac'), '%u00ac'],
      [urlDecodeUni('%uD83D'), '%uD83D'],
      [base64Decode(Buffer.from('¬').toString('base64')), '%u00ac'],
      [base64Decode('/w=='), '%ufffd'],
    ];
    for (const [decoded, output] of table) assert.equal(utf8ToUnicode(decoded), output, JSON.stringify(decoded));
    assert.equal(urlDecode('%C2%AC'), '¬');
    assert.equal(urlDecode('%C2%AC').length, 1);
  });
});
