import type { FastifyInstance } from 'fastify';

/** MalformedJsonError is raised by the JSON body parser; each family phrases it in its dialect. */
export class MalformedJsonError extends Error {
  override readonly name = 'MalformedJsonError';
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

/**
 * useJsonBodies installs the JSON body parser: an empty body is "no body" (clients such as
 * gcloud POST `wait` with a JSON content type and nothing else), anything else must parse.
 */
export function useJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(/^application\/(.+\+)?json(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (error) {
      const detail = (error as Error).message;
      const position = /position (\d+)/.exec(detail)?.[1];
      done(new MalformedJsonError(detail, text, position === undefined ? locateJsonError(text) : Number(position)), undefined);
    }
  });
}
