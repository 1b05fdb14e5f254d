import { transportProblemOf } from './errors.ts';
import { googleErrorBody } from './google-error-envelope.ts';
import type { ErrorResponse } from './service.ts';

/**
 * The one answer for a path no family owns (`/`, `/foo`, `/metrics`, a request with no readable
 * request line, `CONNECT host:port`): no API's dialect applies, so core answers what Google's front
 * end says of a URL it serves nothing under, as JSON in the classic Google envelope without a
 * canonical `status` word:
 *
 *   404 {"error":{"code":404,"message":"The requested URL /foo was not found on this server.",
 *                 "errors":[{"message":"…","domain":"global","reason":"notFound"}]}}
 *
 * Three of the four families' clients read that envelope, and kubectl reads any non-Status body by
 * its HTTP status. The shape is documented in docs/architecture.md and must stay stable: clients
 * and the bad-input fuzzer (neutralErrorBodyProblem) rely on it.
 */

/** NEUTRAL_CONTENT_TYPE is the content type of every neutral answer. */
export const NEUTRAL_CONTENT_TYPE = 'application/json; charset=UTF-8';

/** renderNeutralError phrases core's answer to `error` for a request under no family's path. */
export function renderNeutralError(error: unknown): ErrorResponse {
  const problem = transportProblemOf(error);
  const [status, reason, message] =
    problem === undefined
      ? [500, 'backendError', 'Internal error.']
      : problem.kind === 'not-found'
        ? [404, 'notFound', `The requested URL ${problem.detail} was not found on this server.`]
        : problem.kind === 'headers-too-large'
          ? // Google's front end answers an oversized request head with 413, not 431.
            [413, 'badRequest', problem.detail]
          : problem.kind === 'unavailable'
            ? [503, 'backendError', problem.detail]
            : [problem.httpStatus, 'badRequest', problem.detail];
  return { status, headers: { 'content-type': NEUTRAL_CONTENT_TYPE }, body: googleErrorBody({ httpStatus: status, message, reason }) };
}

/**
 * neutralErrorBodyProblem says what keeps `body` from being core's neutral answer with HTTP
 * `status` (exactly the members above, the code equal to the status), or undefined when it is one.
 */
export function neutralErrorBodyProblem(status: number, body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error' || typeof error !== 'object' || error === null)
    return 'not {"error":{…}}';
  if (Object.keys(error).join() !== 'code,message,errors') return `members [${Object.keys(error).join()}], expected [code,message,errors]`;
  if (error['code'] !== status) return `code ${String(error['code'])} is not the HTTP status ${status}`;
  const entries = error['errors'];
  if (typeof error['message'] !== 'string' || !Array.isArray(entries) || entries.length !== 1) return 'no message, or not one errors[] entry';
  const entry = entries[0] as Record<string, unknown>;
  if (
    Object.keys(entry).join() !== 'message,domain,reason' ||
    entry['message'] !== error['message'] ||
    entry['domain'] !== 'global' ||
    typeof entry['reason'] !== 'string'
  )
    return 'errors[0] is not {message, domain: global, reason}';
  return undefined;
}
