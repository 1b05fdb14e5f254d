import { InjectedFault } from '../../core/faults/injected-fault.ts';
import { injectedFaultAnswer } from '../../core/faults/google-fault.ts';
import { googleErrorBody } from '../../core/google-error-envelope.ts';
import { transportProblemOf } from '../../core/errors.ts';
import { MalformedJsonError, pointAtJsonError } from '../../core/json-body.ts';
import type { ErrorResponse, ErrorSite } from '../../core/service.ts';
import { UploadError, wrongUrlForUpload } from '../../core/uploads/index.ts';
import { MailError } from './errors.ts';

/** toMailError maps anything thrown under the mail paths onto the mail dialect. */
export function toMailError(error: unknown, site: ErrorSite): MailError {
  if (error instanceof MailError) return error;
  if (error instanceof UploadError) return new MailError(error.httpStatus, error.reason, error.status, error.message);
  if (error instanceof MalformedJsonError) {
    const problem = error.position === undefined && /end of JSON input/.test(error.detail) ? 'Unexpected end of string.' : 'Unexpected token.';
    return new MailError(400, 'parseError', 'INVALID_ARGUMENT', `Invalid JSON payload received. ${problem}\n${pointAtJsonError(error)}`);
  }
  const problem = transportProblemOf(error);
  if (problem !== undefined) {
    switch (problem.kind) {
      case 'body-too-large':
        return new MailError(413, 'badRequest', 'INVALID_ARGUMENT', `Request payload size exceeds the limit: ${site.bodyLimit} bytes.`);
      case 'malformed-body':
        return new MailError(400, 'parseError', 'INVALID_ARGUMENT', `Invalid JSON payload received. ${problem.detail}`);
      case 'not-found':
        return new MailError(404, 'notFound', 'NOT_FOUND', `The requested URL ${problem.detail} was not found on this server.`);
      case 'method-not-allowed':
        return new MailError(405, 'httpMethodNotAllowed', 'UNIMPLEMENTED', `Request method ${site.method} is not supported by ${site.path}.`);
      case 'unsupported-media-type': {
        // Media sent to a metadata address: Google points the client at the upload address.
        const wrong = wrongUrlForUpload();
        return new MailError(wrong.httpStatus, wrong.reason, wrong.status, wrong.message);
      }
      default:
        return new MailError(problem.httpStatus, 'badRequest', 'INVALID_ARGUMENT', problem.detail);
    }
  }
  return new MailError(500, 'backendError', 'INTERNAL', 'Internal error encountered.');
}

/** mailErrorBody renders a MailError as Google's JSON error envelope with `status`. */
export function mailErrorBody(error: MailError): Record<string, unknown> {
  return googleErrorBody(error);
}

/** renderMailError is the mail family's one error serializer (ServiceDefinition.renderError). */
export function renderMailError(error: unknown, site: ErrorSite): ErrorResponse {
  if (error instanceof InjectedFault) return injectedFaultAnswer(error, true);
  const mailError = toMailError(error, site);
  return {
    status: mailError.httpStatus,
    headers: { ...mailError.headers(), 'content-type': 'application/json; charset=UTF-8' },
    body: mailErrorBody(mailError),
  };
}
