import { ApiError } from '../../core/errors.ts';
import { authChallengeHeaders, type CredentialProblem, credentialErrorFields, INSUFFICIENT_SCOPES, scopeErrorInfo } from '../../core/google-auth-errors.ts';

/**
 * MailError is an error of the mail family with what Google puts on the wire:
 * `{"error":{"code","message","errors":[{"message","domain":"global","reason",…extra}],"status"}}`.
 */
export class MailError extends ApiError {
  override readonly name = 'MailError';
  constructor(
    readonly httpStatus: number,
    /** The lowerCamel `errors[].reason`. */
    readonly reason: string,
    /** The canonical status word (`INVALID_ARGUMENT`, …). */
    readonly status: string,
    message: string,
    /** Extra members of the `errors[]` entry (`location`, `locationType`). */
    readonly extra: Readonly<Record<string, string>> = {},
    /** google.rpc details, when Google sends them (ErrorInfo for scope failures). */
    readonly details?: readonly unknown[],
  ) {
    super(message);
  }

  override headers(): Record<string, string> {
    return authChallengeHeaders(this.httpStatus);
  }
}

/** invalidArgument is the 400 every validation failure of the mail API answers (`Invalid To header`, …). */
export function invalidArgument(message: string): MailError {
  return new MailError(400, 'invalidArgument', 'INVALID_ARGUMENT', message);
}

/** notFound is the mail API's 404 for an unknown message, draft, thread, label or attachment. */
export function notFound(): MailError {
  return new MailError(404, 'notFound', 'NOT_FOUND', 'Requested entity was not found.');
}

/** failedPrecondition is Gmail's catch-all 400 for a request that cannot be carried out in the mailbox's state. */
export function failedPrecondition(): MailError {
  return new MailError(400, 'failedPrecondition', 'FAILED_PRECONDITION', 'Precondition check failed.');
}

/** RAW_REQUIRED is Gmail's answer to a write that carries neither `raw` nor an upload. */
export const RAW_REQUIRED = "'raw' RFC822 payload message string or uploading message via /upload/* URL required";

/** rawRequired is the 400 for a write without `raw` and without media. */
export function rawRequired(): MailError {
  return invalidArgument(RAW_REQUIRED);
}

/** delegationDenied is the 403 for a mailbox the caller may not act on. */
export function delegationDenied(userId: string): MailError {
  return new MailError(403, 'forbidden', 'PERMISSION_DENIED', `Delegation denied for ${userId}`);
}

/** missingCredential is Google's 401 for a request with no credential. */
export function missingCredential(): MailError {
  return credentialError('missing');
}

/** invalidCredential is Google's 401 for a token it does not recognise. */
export function invalidCredential(): MailError {
  return credentialError('invalid');
}

/** credentialError is Google's 401 (core/google-auth-errors.ts) as a mail error. */
function credentialError(problem: CredentialProblem): MailError {
  const { httpStatus, reason, status, message, extra } = credentialErrorFields(problem);
  return new MailError(httpStatus, reason, status, message, extra);
}

/** insufficientScopes is Google's 403 for a token whose scopes do not cover the method, with its ErrorInfo detail. */
export function insufficientScopes(method: string): MailError {
  const { httpStatus, reason, status, message } = INSUFFICIENT_SCOPES;
  return new MailError(httpStatus, reason, status, message, {}, [scopeErrorInfo('gmail.googleapis.com', method)]);
}
