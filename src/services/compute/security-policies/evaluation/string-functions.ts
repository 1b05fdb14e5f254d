/**
 * The string functions of the rules language whose semantics are Cloud Armor's own, as its
 * rules-language reference documents them (the lenient service behaviour, not rulescli's
 * stricter Go implementations): ASCII case mapping, base64Decode, urlDecode, urlDecodeUni and
 * utf8ToUnicode. Pure and total: invalid input never throws. The bytes a decoder produces are
 * read as UTF-8 text the one way the engine reads bytes (utf8-text.ts), so a decoded value
 * compares, counts and converts as the same value given as text does.
 */
import { NON_ASCII, readUtf8 } from './utf8-text.ts';
/** lowerAscii maps A–Z to a–z and leaves every other character alone (the service is ASCII-only). */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** upperAscii maps a–z to A–Z and leaves every other character alone. */
export function upperAscii(text: string): string {
  return text.replace(/[a-z]+/g, (run) => run.toUpperCase());
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * base64Decode replaces `_` with `/` and `-` with `+` (the URL-safe alphabet), then decodes;
 * padding is optional. Invalid input gives `""` (docs: "returns an empty string if the value is
 * not valid"). The bytes are read as UTF-8 (readUtf8).
 */
export function base64Decode(text: string): string {
  const standard = text.replace(/_/g, '/').replace(/-/g, '+');
  if (!BASE64.test(standard)) return '';
  const unpadded = standard.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return '';
  const padding = standard.length - unpadded.length;
  if (padding > 0 && standard.length % 4 !== 0) return '';
  return readUtf8(Buffer.from(unpadded, 'base64'));
}

/**
 * urlDecode decodes `%XX` and turns `+` into a space; an invalid escape is kept as written
 * (docs: "Invalid encodings are returned as-is"). The result's bytes (the text's own UTF-8 and
 * the decoded ones) are read as UTF-8 (readUtf8): `%C2%AC` is `¬`, a lone `%AC` is U+FFFD.
 */
export function urlDecode(text: string): string {
  return decode(text, false);
}

/** urlDecodeUni is urlDecode that also decodes the IIS-style `%uXXXX` escapes to their character (its UTF-8 bytes). */
export function urlDecodeUni(text: string): string {
  return decode(text, true);
}

function decode(text: string, unicode: boolean): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const bytes: number[] = [];
  const pushText = (chunk: string): void => {
    for (const byte of Buffer.from(chunk, 'utf8')) bytes.push(byte);
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2b /* + */) {
      bytes.push(0x20);
      continue;
    }
    if (code === 0x25 /* % */) {
      const unit = unicode && (text[i + 1] === 'u' || text[i + 1] === 'U') ? uniEscape(text.slice(i + 2, i + 6)) : undefined;
      if (unit !== undefined) {
        pushText(String.fromCharCode(unit));
        i += 5;
        continue;
      }
      const hex = text.slice(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
        continue;
      }
    }
    if (code < 0x80) bytes.push(code);
    else {
      // A whole character (both halves of a surrogate pair) as its UTF-8.
      const char = String.fromCodePoint(text.codePointAt(i) ?? code);
      pushText(char);
      i += char.length - 1;
    }
  }
  return readUtf8(Uint8Array.from(bytes));
}

/** uniEscape is the code unit of the four hex digits of a `%uXXXX`, or undefined: not four hex digits, or a surrogate (no character; kept as written, as Go's `strconv.Unquote` refuses it). */
function uniEscape(digits: string): number | undefined {
  if (!/^[0-9a-fA-F]{4}$/.test(digits)) return undefined;
  const unit = Number.parseInt(digits, 16);
  return unit >= 0xd800 && unit <= 0xdfff ? undefined : unit;
}

/**
 * utf8ToUnicode decodes its input as UTF-8 and writes every non-ASCII code point as `%u` and its
 * hex digits, lower-case, at least four and as many as it has (`¬` → `%u00ac`, `😀` → `%u1f600`,
 * one escape, not two UTF-16 halves), leaving ASCII as it is: Google's open-source engine
 * (cel-expr/cloud-armor-rules `utf8ToUnicodeString`). A byte that is not valid UTF-8 reads as
 * U+FFFD there (Go ranges over a string so), and is `%ufffd` here too: the engine's strings are
 * text read that way (utf8-text.ts), and a lone UTF-16 surrogate, which no UTF-8 can encode, is
 * U+FFFD as well.
 */
export function utf8ToUnicode(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) out += char;
    else out += `%u${(code >= 0xd800 && code <= 0xdfff ? 0xfffd : code).toString(16).padStart(4, '0')}`;
  }
  return out;
}
