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
    assert.equal(base64Decode('_-8'), Buffer.from('/+8=', 'base64').toString('latin1'));
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

  it('utf8ToUnicode writes non-ASCII characters as lower-case %uXXXX', () => {
    assert.equal(utf8ToUnicode('¬'), '%u00ac');
    assert.equal(utf8ToUnicode('a€b'), 'a%u20acb');
    assert.equal(utf8ToUnicode('plain'), 'plain');
    assert.equal(utf8ToUnicode('😀'), '%ud83d%ude00');
  });
});
