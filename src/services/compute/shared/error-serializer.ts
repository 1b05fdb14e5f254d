import { InjectedFault } from '../../../core/faults/injected-fault.ts';
import { injectedFaultAnswer } from '../../../core/faults/google-fault.ts';
import { transportProblemOf } from '../../../core/errors.ts';
import { JsonEncodingError, JsonTooDeepError, MalformedJsonError, pointAtJsonError } from '../../../core/json-body.ts';
import { googleErrorBody, googleEnvelopeProblem } from '../../../core/google-error-envelope.ts';
import type { ErrorResponse, ErrorSite } from '../../../core/service.ts';
import { ComputeError } from './errors.ts';
import { invalidPayload } from './decode-resource.ts';

/** computeErrorBody renders a ComputeError as the compute wire envelope. */
export function computeErrorBody(error: ComputeError): Record<string, unknown> {
  return googleErrorBody(error);
}

/** toComputeError maps anything thrown inside the compute family onto its dialect. */
export function toComputeError(error: unknown, bodyLimit: number, contentType?: string): ComputeError {
  if (error instanceof ComputeError) return error;
  if (error instanceof JsonTooDeepError) {
    // Google's parser reports depth without pointing at the spot.
    return invalidPayload(`Invalid JSON payload received. Message too deep. Max recursion depth reached for key '${error.key}'`);
  }
  if (error instanceof JsonEncodingError)
    return invalidPayload(`Invalid JSON payload received. Encountered non UTF-8 code points.\n${pointAtJsonError(error)}`);
  if (error instanceof MalformedJsonError) {
    const problem = error.position === undefined && /end of JSON input/.test(error.detail) ? 'Unexpected end of string.' : 'Unexpected token.';
    return invalidPayload(`Invalid JSON payload received. ${problem}\n${pointAtJsonError(error)}`);
  }
  const problem = transportProblemOf(error);
  if (problem !== undefined) {
    switch (problem.kind) {
      case 'body-too-large':
        return new ComputeError(413, 'badRequest', `Request payload size exceeds the limit: ${bodyLimit} bytes.`, 'INVALID_FIELD_VALUE');
      case 'malformed-body':
        return invalidPayload(`Invalid JSON payload received. ${problem.detail}`);
      case 'not-found':
        return new ComputeError(404, 'notFound', `The requested URL ${problem.detail} was not found on this server.`, 'RESOURCE_NOT_FOUND');
      case 'bad-url':
      case 'bad-request':
        return new ComputeError(problem.httpStatus, 'badRequest', problem.detail, 'INVALID_FIELD_VALUE');
      case 'uri-too-long':
        return new ComputeError(414, 'badRequest', problem.detail, 'INVALID_FIELD_VALUE');
      case 'headers-too-large':
        // Google's front end answers an oversized request head with 413, not 431.
        return new ComputeError(413, 'badRequest', problem.detail, 'INVALID_FIELD_VALUE');
      case 'unsupported-media-type':
        // Fastify's message carries no type ("Unsupported Media Type"): name the request's own.
        return new ComputeError(
          415,
          'badContent',
          `Unsupported content with type: ${contentType ?? problem.detail.replace(/^Unsupported Media Type: /, '')}`,
          'INVALID_FIELD_VALUE',
        );
      case 'unavailable':
        // What Google answers while a backend is down; gcloud retries it.
        return new ComputeError(503, 'backendError', 'The service is currently unavailable.', 'SERVICE_UNAVAILABLE');
      default:
        return new ComputeError(problem.httpStatus, 'invalid', problem.detail, 'INVALID_FIELD_VALUE');
    }
  }
  return new ComputeError(500, 'backendError', 'Internal error. Please try again or contact Google Support.', 'INTERNAL_ERROR');
}

/** renderComputeError is the compute family's one error serializer (ServiceDefinition.renderError). */
export function renderComputeError(error: unknown, site: ErrorSite): ErrorResponse {
  if (error instanceof InjectedFault) return injectedFaultAnswer(error, false);
  const computeError = toComputeError(error, site.bodyLimit, site.contentType);
  return {
    status: computeError.httpStatus,
    headers: { ...computeError.headers(), 'content-type': 'application/json; charset=UTF-8' },
    body: computeErrorBody(computeError),
  };
}

/** computeErrorBodyProblem checks a body against the compute envelope (ServiceDefinition.errorBodyProblem): `status` is optional there. */
export function computeErrorBodyProblem(status: number, body: unknown): string | undefined {
  return googleEnvelopeProblem(status, body, false);
}
