import { dictionary, ownValue } from '../own.ts';

/** MediaLimits are a method's `mediaUpload` descriptor from its discovery document: accepted types and the largest size. */
export interface MediaLimits {
  /** Accepted media types; a `type/*` entry accepts every subtype, `*\/*` everything. */
  readonly accept: readonly string[];
  /** The largest accepted media, in bytes (discovery `maxSize`). */
  readonly maxSize: number;
}

/** ParsedContentType is a Content-Type value split into its lower-case media type and parameters. */
export interface ParsedContentType {
  readonly mediaType: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * parseContentType reads a Content-Type header: `type/subtype` and `; name=value` parameters,
 * values as tokens or quoted strings (backslash escapes undone), names lower-cased, the first of
 * a repeated name kept. RFC 2231 forms (`name*=utf-8''%E2%82%AC`, `name*0=`, `name*1*=`) are joined
 * and decoded. Lenient like MIME readers: what is not a parameter is skipped, not refused (the
 * callers refuse what they cannot use, in their own words). Written here rather than loading a
 * MIME library at start-up for one header.
 */
export function parseContentType(header: string | undefined): ParsedContentType {
  if (header === undefined || header.trim() === '') return { mediaType: '', params: {} };
  const [first = '', ...rest] = splitOutsideQuotes(header);
  const plain = dictionary<string>();
  const extended = new Map<string, { charset: string; pieces: Map<number, { text: string; encoded: boolean }> }>();
  for (const piece of rest) {
    const equals = piece.indexOf('=');
    if (equals <= 0) continue;
    const name = piece.slice(0, equals).trim().toLowerCase();
    const value = unquote(piece.slice(equals + 1).trim());
    // RFC 2231: `name*` is one encoded value, `name*N` piece N, `name*N*` an encoded piece N.
    const star = /^([^*]+)\*(\d{1,3})?(\*)?$/.exec(name);
    if (star === null) {
      if (ownValue(plain, name) === undefined) plain[name] = value;
      continue;
    }
    const base = star[1]!;
    const index = star[2] === undefined ? 0 : Number(star[2]);
    const encoded = star[2] === undefined || star[3] !== undefined;
    const entry = extended.get(base) ?? { charset: 'utf-8', pieces: new Map() };
    let text = value;
    if (encoded && index === 0) {
      const match = /^([^']*)'[^']*'(.*)$/.exec(value);
      if (match !== null) {
        entry.charset = match[1]!.toLowerCase() || 'utf-8';
        text = match[2]!;
      }
    }
    if (!entry.pieces.has(index)) entry.pieces.set(index, { text, encoded });
    extended.set(base, entry);
  }
  const params = Object.assign(dictionary<string>(), plain);
  for (const [name, { charset, pieces }] of extended) {
    const bytes: Buffer[] = [];
    for (let index = 0; pieces.has(index); index++) {
      const { text, encoded } = pieces.get(index)!;
      bytes.push(encoded ? percentDecoded(text) : Buffer.from(text, 'utf8'));
    }
    params[name] = Buffer.concat(bytes).toString(charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii' ? 'utf8' : 'latin1');
  }
  return { mediaType: first.trim().toLowerCase(), params };
}

/** splitOutsideQuotes splits a header value at the semicolons that are not inside a quoted string. */
function splitOutsideQuotes(value: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (quoted && char === '\\' && i + 1 < value.length) {
      current += char + value[++i]!;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === ';' && !quoted) {
      pieces.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  pieces.push(current);
  return pieces;
}

/** unquote undoes a quoted string (`"a \\"b\\""` → `a "b"`); a token stays as it is. */
function unquote(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/gs, '$1');
}

/** percentDecoded reads RFC 2231's %XX escapes as bytes (a stray % stays as it is). */
function percentDecoded(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** acceptsMediaType is true when `mediaType` matches one of the method's accepted types. */
export function acceptsMediaType(limits: MediaLimits, mediaType: string): boolean {
  const [type, subtype] = mediaType.split('/');
  if (type === undefined || subtype === undefined || type === '' || subtype === '') return false;
  return limits.accept.some((entry) => {
    const [acceptType, acceptSubtype] = entry.toLowerCase().split('/');
    if (acceptType === '*') return true;
    return acceptType === type && (acceptSubtype === '*' || acceptSubtype === subtype);
  });
}
