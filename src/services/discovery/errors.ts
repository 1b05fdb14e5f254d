import { InjectedFault } from '../../core/faults/injected-fault.ts';
import { injectedFaultAnswer } from '../../core/faults/google-fault.ts';
import { transportProblemOf } from '../../core/errors.ts';
import { GoogleEnvelopeError, googleErrorBody } from '../../core/google-error-envelope.ts';
import type { ErrorResponse, ErrorSite } from '../../core/service.ts';

/** DiscoveryError is an error of the Discovery service, answered in Google's envelope with `status`. */
export class DiscoveryError extends GoogleEnvelopeError {}

/** NOT_FOUND_TEXT is what the Discovery service says of an API, version or path it does not know. */
export const NOT_FOUND_TEXT = 'Requested entity was not found.';

/** entityNotFound is the Discovery service's 404 for an API or version it does not describe. */
export function entityNotFound(): DiscoveryError {
  return new DiscoveryError(404, 'notFound', 'NOT_FOUND', NOT_FOUND_TEXT);
}

function toDiscoveryError(error: unknown, site: ErrorSite): DiscoveryError {
  if (error instanceof DiscoveryError) return error;
  const problem = transportProblemOf(error);
  if (problem === undefined) return new DiscoveryError(500, 'backendError', 'INTERNAL', 'Internal error encountered.');
  switch (problem.kind) {
    case 'not-found':
      return entityNotFound();
    case 'method-not-allowed':
      return new DiscoveryError(405, 'httpMethodNotAllowed', 'UNIMPLEMENTED', `Request method ${site.method} is not supported by ${site.path}.`);
    case 'body-too-large':
      return new DiscoveryError(413, 'badRequest', 'INVALID_ARGUMENT', `Request payload size exceeds the limit: ${site.bodyLimit} bytes.`);
    case 'unavailable':
      return new DiscoveryError(503, 'backendError', 'UNAVAILABLE', problem.detail);
    default:
      return new DiscoveryError(problem.httpStatus, 'badRequest', 'INVALID_ARGUMENT', problem.detail);
  }
}

/** renderDiscoveryError is the Discovery service's one error serializer (ServiceDefinition.renderError). */
export function renderDiscoveryError(error: unknown, site: ErrorSite): ErrorResponse {
  if (error instanceof InjectedFault) return injectedFaultAnswer(error, true);
  const answer = toDiscoveryError(error, site);
  return {
    status: answer.httpStatus,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: googleErrorBody({ httpStatus: answer.httpStatus, message: answer.message, reason: answer.reason, status: answer.status }),
  };
}
