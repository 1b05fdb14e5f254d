/**
 * The string functions of the rules language whose semantics are Cloud Armor's own, as its
 * rules-language reference documents them (the lenient service behaviour, not rulescli's
 * stricter Go implementations): ASCII case mapping, base64Decode, urlDecode, urlDecodeUni and
 * utf8ToUnicode. Pure and total: invalid input never throws.
 */

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
 * not valid"). The bytes are read as Latin-1, one character per byte, as RE2::Latin1 sees them.
 */
export function base64Decode(text: string): string {
  const standard = text.replace(/_/g, '/').replace(/-/g, '+');
  if (!BASE64.test(standard)) return '';
  const unpadded = standard.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return '';
  const padding = standard.length - unpadded.length;
  if (padding > 0 && standard.length % 4 !== 0) return '';
  return Buffer.from(unpadded, 'base64').toString('latin1');
}

/**
 * urlDecode decodes `%XX` and turns `+` into a space; an invalid escape is kept as written
 * (docs: "Invalid encodings are returned as-is"). Decoded bytes are read as Latin-1.
 */
export function urlDecode(text: string): string {
  return decode(text, false);
}

/** urlDecodeUni is urlDecode that also decodes the IIS-style `%uXXXX` escapes to their character. */
export function urlDecodeUni(text: string): string {
  return decode(text, true);
}

function decode(text: string, unicode: boolean): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '+') {
      out += ' ';
      continue;
    }
    if (char === '%') {
      if (unicode && (text[i + 1] === 'u' || text[i + 1] === 'U') && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 5;
        continue;
      }
      const hex = text.slice(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 2;
        continue;
      }
    }
    out += char;
  }
  return out;
}

/** utf8ToUnicode writes every non-ASCII character as `%uXXXX` (lower-case hex) and leaves ASCII as it is. */
export function utf8ToUnicode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) {
      out += char;
      continue;
    }
    // Characters beyond the BMP become their two UTF-16 halves, each a %uXXXX.
    for (let i = 0; i < char.length; i++) out += `%u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return out;
}
