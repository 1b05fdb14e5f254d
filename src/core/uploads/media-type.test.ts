import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptsMediaType, parseContentType } from './media-type.ts';

/** parsed is the result with its parameters as a plain object (they come without a prototype). */
function parsed(header: string | undefined): { mediaType: string; params: Record<string, string> } {
  const result = parseContentType(header);
  return { mediaType: result.mediaType, params: { ...result.params } };
}

describe('parseContentType', () => {
  it('lower-cases the media type and parameter names, keeps values, skips blanks', () => {
    assert.deepEqual(parsed(' Multipart/Related ; Boundary = abc ; charset=UTF-8'), {
      mediaType: 'multipart/related',
      params: { boundary: 'abc', charset: 'UTF-8' },
    });
    assert.deepEqual(parsed(undefined), { mediaType: '', params: {} });
    assert.deepEqual(parsed('   '), { mediaType: '', params: {} });
    assert.deepEqual(parsed('image/png'), { mediaType: 'image/png', params: {} });
  });

  it('reads quoted strings: semicolons inside, backslash escapes undone', () => {
    assert.deepEqual(parsed('multipart/related; boundary="a;b \\"c\\""').params, { boundary: 'a;b "c"' });
    assert.deepEqual(parsed('multipart/related; boundary="===============123=="').params, { boundary: '===============123==' });
  });

  it('keeps the first of a repeated parameter and skips pieces that are not parameters', () => {
    assert.deepEqual(parsed('a/b; ; junk; BOUNDARY=X; boundary=Y').params, { boundary: 'X' });
  });

  it('joins and decodes RFC 2231 values', () => {
    assert.equal(parseContentType("text/plain; title*=utf-8''%E2%82%AC%20rate").params['title'], '€ rate');
    assert.equal(parseContentType('a/b; x*0=abc; x*1=def').params['x'], 'abcdef');
    assert.equal(parseContentType("a/b; x*0*=utf-8''%C3%A9; x*1=z").params['x'], 'éz');
    assert.equal(parseContentType("a/b; x*=iso-8859-1''%E9").params['x'], 'é');
  });

  it('never lets a parameter name reach a prototype', () => {
    const { params } = parseContentType('a/b; __proto__=x; constructor=y');
    assert.equal(Object.getPrototypeOf(params), null);
    // biome-ignore lint/suspicious/noProto: the test is about a key named __proto__ kept as an own, plain key
    assert.equal(params['__proto__'], 'x');
    assert.equal(params['constructor'], 'y');
    assert.equal(parseContentType('a/b').params['constructor'], undefined);
  });
});

describe('acceptsMediaType', () => {
  it('matches exact types, type wildcards and */*', () => {
    const limits = { accept: ['message/*', 'application/octet-stream'], maxSize: 1 };
    assert.equal(acceptsMediaType(limits, 'message/rfc822'), true);
    assert.equal(acceptsMediaType(limits, 'application/octet-stream'), true);
    assert.equal(acceptsMediaType(limits, 'text/plain'), false);
    assert.equal(acceptsMediaType({ accept: ['*/*'], maxSize: 1 }, 'text/plain'), true);
    assert.equal(acceptsMediaType(limits, 'message'), false);
  });
});
