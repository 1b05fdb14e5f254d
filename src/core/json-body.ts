import type { FastifyInstance } from 'fastify';

/** MalformedJsonError is raised by the JSON body parser; each family phrases it in its dialect. */
export class MalformedJsonError extends Error {
  override readonly name: string = 'MalformedJsonError';
  readonly statusCode = 400;
  constructor(
    readonly detail: string,
    /** The offending body, for error messages that quote it. */
    readonly body: string,
    /** Character offset of the problem, when JSON.parse reported one. */
    readonly position: number | undefined,
  ) {
    super(`Malformed JSON body: ${detail}`);
  }
}

/** MAX_JSON_DEPTH is how deeply objects and arrays may nest in a body: Google's JSON front end stops at 100. */
export const MAX_JSON_DEPTH = 100;

/**
 * JsonTooDeepError is a body nested deeper than MAX_JSON_DEPTH. `key` is the member whose value
 * opened the container one level too deep ('' inside an array or at the top), as Google's parser
 * names it.
 */
export class JsonTooDeepError extends MalformedJsonError {
  override readonly name = 'JsonTooDeepError';
  constructor(
    readonly key: string,
    body: string,
    position: number,
  ) {
    super(`nesting deeper than ${MAX_JSON_DEPTH} levels`, body, position);
  }
}

/** JsonEncodingError is a body that is not valid UTF-8; `position` is the first bad character of the lossily decoded text. */
export class JsonEncodingError extends MalformedJsonError {
  override readonly name = 'JsonEncodingError';
}

/**
 * pointAtJsonError renders where a body stopped parsing the way Google's JSON front end does:
 * the offending line (at most 80 characters around the spot), then a caret under the spot.
 */
export function pointAtJsonError(error: MalformedJsonError): string {
  const { body } = error;
  const at = Math.min(error.position ?? body.length, body.length);
  const lineStart = body.lastIndexOf('\n', at - 1) + 1;
  const newline = body.indexOf('\n', at);
  const lineEnd = newline === -1 ? body.length : newline;
  const from = Math.max(lineStart, at - 60);
  const to = Math.min(lineEnd, from + 80);
  return `${body.slice(from, to)}\n${' '.repeat(at - from)}^`;
}

/**
 * locateJsonError finds the offset of the first character that makes `text` invalid JSON, for
 * runtimes whose JSON.parse message names no position: a prefix that only runs out early is
 * still valid so far, so the first bad offset is where prefixes start failing otherwise.
 * Undefined when the text is merely cut short.
 */
export function locateJsonError(text: string): number | undefined {
  const failsBy = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      const message = (error as Error).message;
      if (/end of JSON input|Unterminated string/.test(message)) return false;
      const position = /position (\d+)/.exec(message)?.[1];
      return position === undefined || Number(position) < length;
    }
  };
  if (!failsBy(text.length)) return undefined;
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (failsBy(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** JsonProblem is where JSON text stops being JSON, 1-based, with V8's words for it. */
export interface JsonProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/**
 * jsonProblemOf says where `text` first fails to be JSON, as a line and column (undefined when
 * it is JSON): the offset V8 names, or locateJsonError's when it names none; the end of the text
 * when the text is merely cut short. For files, whose readers want a line; bodies use offsets.
 */
export function jsonProblemOf(text: string): JsonProblem | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const full = (error as Error).message;
    const named = /position (\d+)/.exec(full)?.[1];
    const offset = named === undefined ? (locateJsonError(text) ?? text.length) : Number(named);
    const before = text.slice(0, offset);
    // V8 quotes the text around the spot (`Unexpected token ']', "…" is not valid JSON`), lines and all: the line and column say where.
    const message = /^(Unexpected token .+?), (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s.exec(full)?.[1] ?? full;
    return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n'), message };
  }
}

/**
 * findTooDeep scans JSON text once, without recursion, for the first object or array that opens
 * deeper than MAX_JSON_DEPTH, and names the member it belongs to. It only counts brackets outside
 * strings; whether the text is valid JSON is JSON.parse's business.
 */
export function findTooDeep(text: string): { readonly key: string; readonly position: number } | undefined {
  // Every body passes here: one without more brackets than the limit cannot nest past it.
  if (!hasMoreBrackets(text, MAX_JSON_DEPTH)) return undefined;
  let depth = 0;
  // The last string literal and whether a ':' followed it (it was then a member name).
  let lastString = '';
  let key = '';
  let previous = '';
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '"') {
      const start = at;
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
      lastString = text.slice(start, at + 1);
      previous = '"';
      continue;
    }
    if (char === ' ' || char === '\n' || char === '\r' || char === '\t') continue;
    if (char === ':') key = previous === '"' ? lastString : '';
    else if (char === '{' || char === '[') {
      if (++depth > MAX_JSON_DEPTH) return { key: previous === ':' ? decodeKey(key) : '', position: at };
    } else if (char === '}' || char === ']') depth--;
    previous = char;
  }
  return undefined;
}

/** hasMoreBrackets tells whether `text` holds more than `limit` opening brackets, strings included. */
function hasMoreBrackets(text: string, limit: number): boolean {
  let opened = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if ((code === 0x7b || code === 0x5b) && ++opened > limit) return true;
  }
  return false;
}

function decodeKey(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * decodeUtf8 decodes a body strictly: invalid UTF-8 is an error pointing at the first bad
 * character, never silently replaced. A genuine U+FFFD in the input (bytes EF BF BD) is kept.
 */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const lossy = bytes.toString('utf8');
    let bytesBefore = 0;
    let charsCounted = 0;
    for (let at = lossy.indexOf('\uFFFD'); at !== -1; at = lossy.indexOf('\uFFFD', at + 1)) {
      bytesBefore += Buffer.byteLength(lossy.slice(charsCounted, at));
      charsCounted = at;
      const genuine = bytes[bytesBefore] === 0xef && bytes[bytesBefore + 1] === 0xbf && bytes[bytesBefore + 2] === 0xbd;
      if (!genuine) throw new JsonEncodingError('invalid UTF-8', lossy, at);
    }
    throw new JsonEncodingError('invalid UTF-8', lossy, 0);
  }
}

/** parseJsonBody parses a request body, refusing invalid UTF-8 and nesting deeper than MAX_JSON_DEPTH; blank means no body. */
export function parseJsonBody(bytes: Buffer): unknown {
  const text = decodeUtf8(bytes);
  if (text.trim() === '') return undefined;
  // A streaming parser stops at whichever problem comes first in the text. The depth is looked at
  // first: V8 takes hundreds of milliseconds over a body of 400 KB nested 50,000 deep, and finding
  // its end first (locateJsonError) many times that, when only the text before the bracket too
  // deep can hold an earlier syntax error.
  const deep = findTooDeep(text);
  if (deep !== undefined && !failsBefore(text, deep.position)) throw new JsonTooDeepError(deep.key, text, deep.position);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = (error as Error).message;
    const position = /position (\d+)/.exec(detail)?.[1];
    throw new MalformedJsonError(detail, text, position === undefined ? locateJsonError(text) : Number(position));
  }
}

/**
 * failsBefore tells whether `text` stops parsing at or before offset `at` for a reason other than
 * running out: the text up to and including `at` is parsed alone, and running out (an error at its
 * very end, as V8 words it for `{` "Expected property name or '}' … at position <length>") is no
 * error. A prefix that ends at an opening bracket cannot be a whole value.
 */
function failsBefore(text: string, at: number): boolean {
  const prefix = text.slice(0, at + 1);
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1];
    if (position !== undefined) return Number(position) < prefix.length;
    return !/end of JSON input|Unterminated string/.test(message);
  }
}

/**
 * useJsonBodies installs the JSON body parser: an empty body is "no body" (clients such as
 * gcloud POST `wait` with a JSON content type and nothing else), anything else must parse.
 */
export function useJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(/^application\/(.+\+)?json(;.*)?$/i, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? Buffer.from(body) : body));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
