import { googleErrorBody, type GoogleErrorFields } from '../google-error-envelope.ts';
import type { ErrorResponse } from '../service.ts';
import type { InjectedFault } from './injected-fault.ts';

/**
 * googleFaultFields phrases an injected status as Google's front ends answer it, for the
 * families speaking the JSON error envelope. The texts are the real ones (shared reference
 * "faults and console" §1.4, §3): rate limits are `usageLimits`/`rateLimitExceeded` (403 `Rate
 * Limit Exceeded`; a 429 is `RESOURCE_EXHAUSTED`), server errors are `backendError`. Compute's
 * front end leaves `status` out (`withStatus` false); the newer APIs (mail, publisher) carry it.
 * A rule's own `reason` and `message` replace the defaults.
 */
export function googleFaultFields(fault: InjectedFault, withStatus: boolean): GoogleErrorFields {
  const found = DEFAULTS[fault.httpStatus] ?? (fault.httpStatus >= 500 ? SERVER_ERROR : CLIENT_ERROR);
  const computeText = withStatus ? undefined : COMPUTE_TEXTS[fault.httpStatus];
  const message = fault.text ?? computeText ?? found.message;
  // Compute's rate limits are all usageLimits ones (`Rate Limit Exceeded`), whatever the status.
  const domain = !withStatus && fault.httpStatus === 429 ? 'usageLimits' : found.domain;
  return {
    httpStatus: fault.httpStatus,
    reason: fault.reason ?? found.reason,
    message,
    status: withStatus ? found.status : undefined,
    extra: domain === 'global' ? undefined : { domain },
  };
}

interface Phrase {
  readonly reason: string;
  readonly domain: string;
  readonly status: string;
  readonly message: string;
}

const DEFAULTS: Readonly<Record<number, Phrase>> = {
  400: { reason: 'badRequest', domain: 'global', status: 'INVALID_ARGUMENT', message: 'Bad Request' },
  401: { reason: 'authError', domain: 'global', status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' },
  403: { reason: 'rateLimitExceeded', domain: 'usageLimits', status: 'PERMISSION_DENIED', message: 'Rate Limit Exceeded' },
  404: { reason: 'notFound', domain: 'global', status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  409: { reason: 'conflict', domain: 'global', status: 'ABORTED', message: 'The operation was aborted.' },
  429: { reason: 'rateLimitExceeded', domain: 'global', status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  500: { reason: 'backendError', domain: 'global', status: 'INTERNAL', message: 'Internal error encountered.' },
  502: { reason: 'backendError', domain: 'global', status: 'UNAVAILABLE', message: 'Backend Error' },
  503: { reason: 'backendError', domain: 'global', status: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  504: { reason: 'backendError', domain: 'global', status: 'DEADLINE_EXCEEDED', message: 'Deadline exceeded.' },
};

/** Compute's own texts where they differ from the newer APIs'. */
const COMPUTE_TEXTS: Readonly<Record<number, string>> = {
  429: 'Rate Limit Exceeded',
  500: 'Internal error. Please try again or contact Google Support.',
};

const SERVER_ERROR: Phrase = { reason: 'backendError', domain: 'global', status: 'INTERNAL', message: 'Internal error encountered.' };
const CLIENT_ERROR: Phrase = { reason: 'failedPrecondition', domain: 'global', status: 'FAILED_PRECONDITION', message: 'Precondition check failed.' };

/** injectedFaultAnswer is the whole answer to an injected status in Google's envelope, with `Retry-After` when the rule gave one. */
export function injectedFaultAnswer(fault: InjectedFault, withStatus: boolean): ErrorResponse {
  return {
    status: fault.httpStatus,
    headers: { ...fault.retryAfterHeaders(), 'content-type': 'application/json; charset=UTF-8' },
    body: googleErrorBody(googleFaultFields(fault, withStatus)),
  };
}
