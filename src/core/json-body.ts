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
      done(new MalformedJsonError(detail, text, position === undefined ? undefined : Number(position)), undefined);
    }
  });
}
