/**
 * The Google JSON error envelope that compute, mail and publisher answer in:
 * `{"error":{"code","message","errors":[{"message","domain","reason",…}],"status"?,"details"?}}`.
 * Compute's front end often omits `status`; the newer APIs (mail, publisher) always carry it.
 */

import { ApiError } from './errors.ts';

/**
 * GoogleEnvelopeError is an error whose envelope is its HTTP status, `errors[0].reason`, canonical
 * `status` word and message: the upload protocols' errors (uploads/errors.ts) and the Discovery
 * service's are this one shape, each a subclass so its serializer can tell its own.
 */
export class GoogleEnvelopeError extends ApiError {
  constructor(
    readonly httpStatus: number,
    /** The lowerCamel `errors[].reason` (`badRequest`, `badContent`, `notFound`, …). */
    readonly reason: string,
    /** The canonical status word (`INVALID_ARGUMENT`, `NOT_FOUND`, …). */
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

/** GoogleErrorFields are what one error puts in the envelope. */
export interface GoogleErrorFields {
  readonly httpStatus: number;
  readonly message: string;
  /** The `errors[0].reason` word (`invalid`, `notFound`, `badRequest`, …). */
  readonly reason: string;
  /** The canonical status word (`INVALID_ARGUMENT`, …); compute often leaves it out. */
  readonly status?: string | undefined;
  /** More members of the `errors[0]` entry (compute's `location`, say). */
  readonly extra?: Readonly<Record<string, unknown>> | undefined;
  /** The `details` list (typed detail objects); an empty or absent one is left out. */
  readonly details?: readonly unknown[] | undefined;
}

/** googleErrorBody renders one error as Google's JSON error envelope (the one renderer of compute, mail and publisher). */
export function googleErrorBody(error: GoogleErrorFields): Record<string, unknown> {
  return {
    error: {
      code: error.httpStatus,
      message: error.message,
      errors: [{ message: error.message, domain: 'global', reason: error.reason, ...error.extra }],
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.details === undefined || error.details.length === 0 ? {} : { details: error.details }),
    },
  };
}

/**
 * googleEnvelopeProblem says what keeps `body` from being an error answer with HTTP `status` in
 * Google's envelope (the code equal to the status, the first entry's message equal to the top
 * one), or undefined when it is one. `requireStatus` demands the canonical status word.
 */
export function googleEnvelopeProblem(status: number, body: unknown, requireStatus: boolean): string | undefined {
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body['error'])) return 'not {"error":{…}}';
  const error = body['error'];
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'errors', 'status', 'details'].includes(key));
  if (extra.length > 0) return `unexpected members ${extra.join(', ')}`;
  if (error['code'] !== status) return `code ${String(error['code'])} is not the HTTP status ${status}`;
  if (typeof error['message'] !== 'string' || error['message'] === '') return 'no message';
  if (error['status'] === undefined ? requireStatus : !/^[A-Z_]+$/.test(String(error['status']))) return 'status is not a canonical code word';
  if (error['details'] !== undefined && !Array.isArray(error['details'])) return 'details is not a list';
  const entries = error['errors'];
  if (!Array.isArray(entries) || entries.length === 0) return 'no errors[]';
  for (const entry of entries) {
    if (!isObject(entry) || ['message', 'domain', 'reason'].some((key) => typeof entry[key] !== 'string'))
      return 'an errors[] entry lacks message, domain or reason';
  }
  if ((entries[0] as Record<string, unknown>)['message'] !== error['message']) return 'errors[0].message differs from message';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
