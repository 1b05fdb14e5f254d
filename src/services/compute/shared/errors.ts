import { ApiError, HTTP_REASON_PHRASES } from '../../../core/errors.ts';
import { authChallengeHeaders, type CredentialProblem, credentialErrorFields, INSUFFICIENT_SCOPES } from '../../../core/google-auth-errors.ts';

/**
 * ComputeError is an error of the compute family, carrying exactly what the real service puts
 * on the wire: `{"error":{"code","message","errors":[{"message","domain","reason"}]}}` for a
 * request that fails synchronously, or an Operation error entry (`code` in UPPER_SNAKE) when the
 * same failure happens inside asynchronous work.
 */
export class ComputeError extends ApiError {
  override readonly name = 'ComputeError';
  constructor(
    readonly httpStatus: number,
    /** The lowerCamel reason of the request error (`invalid`, `notFound`, …). */
    readonly reason: string,
    message: string,
    /** The UPPER_SNAKE code used when this failure is reported inside an Operation. */
    readonly operationCode: string,
    /** The request field the error is about, when there is one (Operation `location`). */
    readonly location?: string,
    /** Extra members of the `errors[]` entry, such as `location` and `locationType` for auth errors. */
    readonly extra: Readonly<Record<string, string>> = {},
    /** The canonical status word Google adds for some errors (`UNAUTHENTICATED`). */
    readonly status?: string,
  ) {
    super(message);
  }

  override headers(): Record<string, string> {
    return authChallengeHeaders(this.httpStatus);
  }

  /** httpErrorMessage is the upper-case reason phrase Operations carry (`BAD REQUEST`). */
  get httpErrorMessage(): string {
    return (HTTP_REASON_PHRASES[this.httpStatus] ?? 'Error').toUpperCase();
  }
}

/** invalidFieldValue is the catalog's INVALID_FIELD_VALUE: `Invalid value for field 'F': 'V'. REASON`. */
export function invalidFieldValue(field: string, value: unknown, reason: string): ComputeError {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  const message = `Invalid value for field '${field}': '${shown}'. ${reason}`.trimEnd();
  return new ComputeError(400, 'invalid', message, 'INVALID_FIELD_VALUE', field);
}

/** requiredField is the catalog's MISSING_REQUIRED_FIELD: `Required field 'F' not specified`. */
export function requiredField(field: string): ComputeError {
  return new ComputeError(400, 'required', `Required field '${field}' not specified`, 'REQUIRED_FIELD_MISSING', field);
}

/** badRequest is a 400 `invalid` error with a free-form message. */
export function badRequest(message: string, location?: string): ComputeError {
  return new ComputeError(400, 'invalid', message, 'INVALID_FIELD_VALUE', location);
}

/** fieldSizeTooLarge is the catalog's FIELD_SIZE_TOO_LARGE. */
export function fieldSizeTooLarge(field: string, maxSize: number, unit: string, actual: number): ComputeError {
  return new ComputeError(
    400,
    'invalid',
    `Value for field '${field}' is too large: maximum size ${maxSize} ${unit}; actual size ${actual}.`,
    'FIELD_SIZE_TOO_LARGE',
    field,
  );
}

/** notFound: `The resource 'PATH' was not found`. */
export function notFound(resourcePath: string): ComputeError {
  return new ComputeError(404, 'notFound', `The resource '${resourcePath}' was not found`, 'RESOURCE_NOT_FOUND');
}

/** alreadyExists: `The resource 'PATH' already exists`. */
export function alreadyExists(resourcePath: string): ComputeError {
  return new ComputeError(409, 'alreadyExists', `The resource '${resourcePath}' already exists`, 'RESOURCE_ALREADY_EXISTS');
}

/** permissionDenied is the catalog's PERMISSIONS_ERROR: `Required 'PERM' permission for 'RESOURCE'`. */
export function permissionDenied(permission: string, resourcePath: string): ComputeError {
  return new ComputeError(403, 'forbidden', `Required '${permission}' permission for '${resourcePath}'`, 'PERMISSIONS_ERROR');
}

/** insufficientScopes is Google's 403 for a token whose OAuth scopes do not cover the method. */
export function insufficientScopes(): ComputeError {
  const { httpStatus, reason, message, status } = INSUFFICIENT_SCOPES;
  return new ComputeError(httpStatus, reason, message, 'PERMISSIONS_ERROR', undefined, {}, status);
}

/** conditionNotMet is a 412 (stale fingerprint and the like). */
export function conditionNotMet(message: string, location?: string): ComputeError {
  return new ComputeError(412, 'conditionNotMet', message, 'CONDITION_NOT_MET', location);
}

/** internalError is a 500 that, inside an Operation, carries the INTERNAL_ERROR code. */
export function internalError(message: string): ComputeError {
  return new ComputeError(500, 'backendError', message, 'INTERNAL_ERROR');
}

/** missingCredential is Google's 401 for a request with no credential. */
export function missingCredential(): ComputeError {
  return credentialError('missing');
}

/** invalidCredential is Google's 401 for a token it does not recognise. */
export function invalidCredential(): ComputeError {
  return credentialError('invalid');
}

/** credentialError is Google's 401 (core/google-auth-errors.ts) as a compute error, `UNAUTHENTICATED` inside an Operation too. */
function credentialError(problem: CredentialProblem): ComputeError {
  const { httpStatus, reason, message, status, extra } = credentialErrorFields(problem);
  return new ComputeError(httpStatus, reason, message, status, undefined, extra, status);
}
