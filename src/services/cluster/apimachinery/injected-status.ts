import type { InjectedFault } from '../../../core/faults/injected-fault.ts';
import { StatusError, type StatusDetails } from './status.ts';

/**
 * injectedStatus phrases an injected status as the apiserver's Status constructors do
 * (apimachinery `errors.go`): 429 `TooManyRequests` (NewTooManyRequests: the message as given,
 * `details.retryAfterSeconds`, and the same seconds in `Retry-After`, as ErrorNegotiated writes
 * both; client-go retries only with that header), 500 `InternalError` (`Internal error occurred:
 * …` with the cause), 503 `ServiceUnavailable`, 504 `Timeout` (`Timeout: …`). A rule's `reason`
 * and `message` replace the defaults.
 */
export function injectedStatus(fault: InjectedFault): StatusError {
  const status = fault.httpStatus;
  const phrase = PHRASES[status] ?? {
    reason: '',
    message: (text: string | undefined) => text ?? `the server responded with the status code ${status} but did not return more information`,
  };
  const details: StatusDetails | undefined =
    status === 500
      ? { causes: [{ message: fault.text ?? DEFAULT_CAUSE }], ...(fault.retryAfter === undefined ? {} : { retryAfterSeconds: fault.retryAfter }) }
      : fault.retryAfter === undefined
        ? undefined
        : { retryAfterSeconds: fault.retryAfter };
  return new StatusError(status, fault.reason ?? phrase.reason, phrase.message(fault.text), details);
}

const DEFAULT_CAUSE = 'injected fault';

interface Phrase {
  readonly reason: string;
  readonly message: (text: string | undefined) => string;
}

const PHRASES: Readonly<Record<number, Phrase>> = {
  400: { reason: 'BadRequest', message: (text) => text ?? 'the server rejected our request for an unknown reason' },
  401: { reason: 'Unauthorized', message: (text) => text ?? 'Unauthorized' },
  403: { reason: 'Forbidden', message: (text) => text ?? 'forbidden' },
  404: { reason: 'NotFound', message: (text) => text ?? 'the server could not find the requested resource' },
  409: { reason: 'Conflict', message: (text) => text ?? 'the object has been modified; please apply your changes to the latest version and try again' },
  410: { reason: 'Expired', message: (text) => text ?? 'too old resource version' },
  429: { reason: 'TooManyRequests', message: (text) => text ?? 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: (text) => `Internal error occurred: ${text ?? DEFAULT_CAUSE}` },
  503: { reason: 'ServiceUnavailable', message: (text) => text ?? 'the server is currently unable to handle the request' },
  504: { reason: 'Timeout', message: (text) => `Timeout: ${text ?? 'request did not complete within the allotted timeout'}` },
};
