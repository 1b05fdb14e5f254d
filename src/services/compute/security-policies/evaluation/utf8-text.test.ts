import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readLatin1Utf8, readUtf8 } from './utf8-text.ts';

describe('reading bytes as the engine reads them', () => {
  it('reads valid UTF-8 as its characters and each invalid byte as one U+FFFD, as Go does', () => {
    const R = '\uFFFD';
    const table: readonly (readonly [bytes: readonly number[], text: string, why: string])[] = [
      [[0x61, 0x62], 'ab', 'ASCII'],
      [[0xc2, 0xac], '¬', 'two bytes'],
      [[0xe2, 0x82, 0xac], '€', 'three bytes'],
      [[0xf0, 0x9f, 0x98, 0x80], '😀', 'four bytes'],
      [[0xef, 0xbf, 0xbd], R, 'an encoded U+FFFD'],
      [[0xac], R, 'a stray continuation byte'],
      [[0xe2, 0x82, 0x41], `${R}${R}A`, 'a truncated sequence: one U+FFFD per byte, not per maximal subpart'],
      [[0xc0, 0xaf], `${R}${R}`, 'an overlong form'],
      [[0xe0, 0x80, 0xaf], `${R}${R}${R}`, 'an overlong three-byte form'],
      [[0xed, 0xa0, 0x80], `${R}${R}${R}`, 'an encoded surrogate'],
      [[0xf4, 0x90, 0x80, 0x80], `${R}${R}${R}${R}`, 'above U+10FFFF'],
      [[0xf5, 0x61], `${R}a`, 'a byte that never starts a sequence'],
      [[0x61, 0xc2], `a${R}`, 'cut at the end'],
    ];
    for (const [bytes, text, why] of table) assert.equal(readUtf8(Uint8Array.from(bytes)), text, why);
  });

  it("reads node's one-character-per-byte header values as UTF-8 text", () => {
    assert.equal(readLatin1Utf8('plain'), 'plain');
    assert.equal(readLatin1Utf8('\u00c2\u00ac'), '¬');
    assert.equal(readLatin1Utf8('q=\u00ac'), 'q=\uFFFD');
  });
});
