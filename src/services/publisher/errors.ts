import { ApiError } from '../../core/errors.ts';
import { authChallengeHeaders, type CredentialProblem, credentialErrorFields, INSUFFICIENT_SCOPES, scopeErrorInfo } from '../../core/google-auth-errors.ts';

/**
 * PublisherError is an error of the publisher family, carrying what Google's JSON front end puts
 * on the wire: `{"error":{"code","message","errors":[{"message","domain","reason",…}],"status"}}`.
 * error-serializer.ts is the one place that writes it.
 */
export class PublisherError extends ApiError {
  override readonly name = 'PublisherError';
  constructor(
    readonly httpStatus: number,
    /** The canonical status word (`INVALID_ARGUMENT`, `UNAUTHENTICATED`, …). */
    readonly status: string,
    /** The lowerCamel reason of the `errors[]` entry (`badRequest`, `notFound`, …). */
    readonly reason: string,
    message: string,
    /** Extra members of the `errors[]` entry (`location`, `locationType` for credential errors). */
    readonly extra: Readonly<Record<string, string>> = {},
    /** google.rpc details, when the real service sends them. */
    readonly details: readonly unknown[] = [],
  ) {
    super(message);
  }

  override headers(): Record<string, string> {
    return authChallengeHeaders(this.httpStatus);
  }
}

/** missingCredential is Google's 401 for a request that carries no credential. */
export function missingCredential(): PublisherError {
  return credentialError('missing');
}

/** invalidCredential is Google's 401 for a token it does not recognise. */
export function invalidCredential(): PublisherError {
  return credentialError('invalid');
}

/** credentialError is Google's 401 (core/google-auth-errors.ts) as a publisher error. */
function credentialError(problem: CredentialProblem): PublisherError {
  const { httpStatus, status, reason, message, extra } = credentialErrorFields(problem);
  return new PublisherError(httpStatus, status, reason, message, extra);
}

/** insufficientScopes is Google's 403 for a token whose scopes do not include the publisher scope. */
export function insufficientScopes(): PublisherError {
  const { httpStatus, status, reason, message } = INSUFFICIENT_SCOPES;
  return new PublisherError(httpStatus, status, reason, message, {}, [scopeErrorInfo('androidpublisher.googleapis.com')]);
}

/** packageNotFound is the Play Developer API's 404 for a package no developer account holds. */
export function packageNotFound(packageName: string): PublisherError {
  return new PublisherError(404, 'NOT_FOUND', 'notFound', `Package not found: ${packageName}.`);
}

/** callerLacksPermission is the Play Developer API's 403 for an app the caller may not manage. */
export function callerLacksPermission(): PublisherError {
  return new PublisherError(403, 'PERMISSION_DENIED', 'forbidden', 'The caller does not have permission');
}

/** invalidUpload is a 400 INVALID_ARGUMENT about the uploaded file (reason `badRequest`, as Play answers upload problems). */
export function invalidUpload(message: string): PublisherError {
  return new PublisherError(400, 'INVALID_ARGUMENT', 'badRequest', message);
}

/** packageNameMismatch is Play's answer when the bundle's package differs from the path's: `UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (pkg)`. */
export function packageNameMismatch(packageName: string): PublisherError {
  return invalidUpload(`UploadException: ADHOC_PACKAGE_NAME_MISMATCH [[]] (${packageName})`);
}

/** badRequest is a 400 INVALID_ARGUMENT about the request itself (not the uploaded file). */
export function badRequest(message: string): PublisherError {
  return new PublisherError(400, 'INVALID_ARGUMENT', 'invalid', message);
}

/** notFound is the front end's 404 for an unknown path or artifact. */
export function notFound(message: string): PublisherError {
  return new PublisherError(404, 'NOT_FOUND', 'notFound', message);
}

/** internalError is Google's 500 (`Internal error encountered.`), as gradle-play-publisher users saw it. */
export function internalError(): PublisherError {
  return new PublisherError(500, 'INTERNAL', 'backendError', 'Internal error encountered.');
}
