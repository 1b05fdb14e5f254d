/**
 * The admin API's errors: one small JSON dialect of fogbank's own,
 * `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"…"}}` — the HTTP status, its
 * canonical status word, and a sentence that names what was wrong.
 */
import { ApiError } from '../../core/errors.ts';

/** STATUS_WORDS are the canonical status words of the HTTP statuses the admin API answers. */
const STATUS_WORDS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  406: 'INVALID_ARGUMENT',
  409: 'ALREADY_EXISTS',
  411: 'INVALID_ARGUMENT',
  413: 'INVALID_ARGUMENT',
  414: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  417: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
};

/** statusWordOf is the canonical word for an HTTP status (by its class when not listed). */
export function statusWordOf(code: number): string {
  return STATUS_WORDS[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** ControlError is an admin API error: its HTTP status and message. */
export class ControlError extends ApiError {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }

  /** status is the canonical status word of httpStatus. */
  get status(): string {
    return statusWordOf(this.httpStatus);
  }
}

/** badRequest is a 400 naming what was wrong with the request. */
export function badRequest(message: string): ControlError {
  return new ControlError(400, message);
}
