import { TransportProblemError } from '../../src/core/errors.ts';
import type { ServiceDefinition } from '../../src/core/service.ts';

/**
 * errorDialectProblem says why `body` is not an error answer in `family`'s dialect, or undefined.
 * The family's own errorBodyProblem decides; a family without one is held to the shape (member
 * names and JSON types, recursively) of what its renderError writes for the same status.
 */
export function errorDialectProblem(family: ServiceDefinition, status: number, body: unknown): string | undefined {
  if (family.errorBodyProblem !== undefined) return family.errorBodyProblem(status, body);
  const reference = family.renderError(new TransportProblemError({ httpStatus: status, kind: 'bad-request', detail: 'reference' }), {
    method: 'GET',
    path: '/',
    contentType: undefined,
    bodyLimit: 0,
  });
  return shapeDifference(reference.body, body, '$');
}

function shapeDifference(expected: unknown, actual: unknown, at: string): string | undefined {
  const kind = (value: unknown): string => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
  if (kind(expected) !== kind(actual)) return `${at} is ${kind(actual)}, expected ${kind(expected)}`;
  if (kind(expected) !== 'object') return undefined;
  const want = Object.keys(expected as object)
    .sort()
    .join();
  const got = Object.keys(actual as object)
    .sort()
    .join();
  if (want !== got) return `${at} has members [${got}], expected [${want}]`;
  for (const key of Object.keys(expected as object)) {
    const problem = shapeDifference((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${at}.${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** BatchPartAnswer is one answer inside a multipart/mixed batch response. */
export interface BatchPartAnswer {
  /** The request part's Content-ID (without `response-`), when it had one. */
  readonly contentId: string | undefined;
  readonly status: number;
  readonly body: string;
}

/** batchAnswers splits a multipart/mixed batch response into its parts' statuses and bodies. */
export function batchAnswers(contentType: string, body: string): BatchPartAnswer[] {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (boundary === undefined) return [];
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((text) => {
      const statusAt = text.indexOf('HTTP/1.1 ');
      const status = Number(text.slice(statusAt + 9, statusAt + 12));
      const bodyAt = text.indexOf('\r\n\r\n', statusAt);
      const contentId = /Content-ID: <response-([^>]*)>/.exec(text.slice(0, statusAt))?.[1];
      return { contentId, status, body: text.slice(bodyAt + 4).replace(/\r\n$/, '') };
    });
}

/** headPartIds lists the Content-IDs of a batch request's HEAD parts, whose answers carry no body. */
export function headPartIds(batchBody: string): ReadonlySet<string> {
  return new Set([...batchBody.matchAll(/Content-ID: <([^>]*)>\r?\n\r?\nHEAD /g)].map((match) => match[1]!));
}
