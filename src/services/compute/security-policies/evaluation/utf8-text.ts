import { isUtf8 } from 'node:buffer';

/**
 * How bytes become the engine's strings. The rules engine works on text (JavaScript strings of
 * code points): the what-if API and `fogbank policy test` receive text as JSON, and expression
 * literals are text. Wherever bytes come in — the guard's request line and header values (node
 * hands them over one character per byte, Latin-1), the bytes `urlDecode`, `urlDecodeUni` and
 * `base64Decode` produce — they are read as UTF-8 the way Google's open-source rules engine
 * (cel-expr/cloud-armor-rules, Go) reads a string: a valid sequence is its code point, and every
 * byte that does not start a valid sequence (a stray continuation byte, a truncated, overlong or
 * surrogate sequence, anything above U+10FFFF) is one U+FFFD, as Go's `utf8.DecodeRune` gives
 * `(RuneError, 1)`. So one request reads the same through the guard as through the what-if API.
 */

/** NON_ASCII finds a character above U+007F (any UTF-16 unit from U+0080 up). */
export const NON_ASCII = /[\u0080-\uffff]/;

/** REPLACEMENT is U+FFFD, what an invalid byte reads as. */
const REPLACEMENT = '\uFFFD';

/** readUtf8 is the text of `bytes` read as UTF-8, each invalid byte a U+FFFD (Go's rule, not WHATWG's one per maximal subpart). */
export function readUtf8(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceAt(bytes, i);
    if (length === 0) {
      out += REPLACEMENT;
      i += 1;
      continue;
    }
    out += Buffer.from(bytes.buffer, bytes.byteOffset + i, length).toString('utf8');
    i += length;
  }
  return out;
}

/** readLatin1Utf8 reads a string holding one byte per character (node's Latin-1 header values) as UTF-8 text. */
export function readLatin1Utf8(text: string): string {
  // ASCII, by far the common case, is already its own text.
  if (!NON_ASCII.test(text)) return text;
  return readUtf8(Buffer.from(text, 'latin1'));
}

/**
 * validSequenceAt is the length of the well-formed UTF-8 sequence starting at `i` (RFC 3629
 * table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
 */
function validSequenceAt(bytes: Uint8Array, i: number): number {
  const first = bytes[i] ?? 0;
  if (first < 0x80) return 1;
  const continuation = (at: number, low = 0x80, high = 0xbf): boolean => {
    const byte = bytes[at];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return continuation(i + 1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80;
    const high = first === 0xed ? 0x9f : 0xbf;
    return continuation(i + 1, low, high) && continuation(i + 2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80;
    const high = first === 0xf4 ? 0x8f : 0xbf;
    return continuation(i + 1, low, high) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}
