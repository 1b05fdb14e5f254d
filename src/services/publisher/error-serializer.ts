import { InjectedFault } from '../../core/faults/injected-fault.ts';
import { injectedFaultAnswer } from '../../core/faults/google-fault.ts';
import { googleErrorBody } from '../../core/google-error-envelope.ts';
import { transportProblemOf } from '../../core/errors.ts';
import { MalformedJsonError } from '../../core/json-body.ts';
import type { ErrorResponse, ErrorSite } from '../../core/service.ts';
import { UploadError } from '../../core/uploads/index.ts';
import { badRequest, internalError, notFound, PublisherError } from './errors.ts';

/** toPublisherError maps anything thrown inside the publisher family onto its dialect. */
export function toPublisherError(error: unknown, site: ErrorSite): PublisherError {
  if (error instanceof PublisherError) return error;
  // The upload protocols' own failures carry Google's envelope pieces; the family renders them.
  if (error instanceof UploadError) return new PublisherError(error.httpStatus, error.status, error.reason, error.message);
  if (error instanceof MalformedJsonError) return badRequest(`Invalid JSON payload received. ${error.detail}`);
  const problem = transportProblemOf(error);
  if (problem !== undefined) {
    switch (problem.kind) {
      case 'body-too-large':
        return new PublisherError(413, 'INVALID_ARGUMENT', 'badRequest', `Request payload size exceeds the limit: ${site.bodyLimit} bytes.`);
      case 'not-found':
        return notFound(`The requested URL ${problem.detail} was not found on this server.`);
      case 'unsupported-media-type':
        return new PublisherError(415, 'INVALID_ARGUMENT', 'badContent', `Unsupported content with type: ${site.contentType ?? 'none'}`);
      case 'method-not-allowed':
        return new PublisherError(405, 'INVALID_ARGUMENT', 'httpMethodNotAllowed', `Request method ${site.method} is not allowed for ${site.path}.`);
      default:
        return new PublisherError(problem.httpStatus, 'INVALID_ARGUMENT', 'badRequest', problem.detail);
    }
  }
  return internalError();
}

/** publisherErrorBody renders a PublisherError as Google's JSON error envelope. */
export function publisherErrorBody(error: PublisherError): Record<string, unknown> {
  return googleErrorBody(error);
}

/** renderPublisherError is the publisher family's one error serializer (ServiceDefinition.renderError). */
export function renderPublisherError(error: unknown, site: ErrorSite): ErrorResponse {
  if (error instanceof InjectedFault) return injectedFaultAnswer(error, true);
  const publisherError = toPublisherError(error, site);
  return {
    status: publisherError.httpStatus,
    headers: { ...publisherError.headers(), 'content-type': 'application/json; charset=UTF-8' },
    body: publisherErrorBody(publisherError),
  };
}
