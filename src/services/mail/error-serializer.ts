import { googleErrorBody } from '../../core/google-error-envelope.ts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { transportProblemOf } from '../../core/errors.ts';
import { MalformedJsonError, pointAtJsonError } from '../../core/json-body.ts';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import { errorSiteOf, type ErrorResponse, type ErrorSite } from '../../core/service.ts';
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
  const mailError = toMailError(error, site);
  return { status: mailError.httpStatus, headers: { ...mailError.headers(), 'content-type': 'application/json; charset=UTF-8' }, body: mailErrorBody(mailError) };
}


/** useMailErrors makes every error of this context answer in the mail dialect (core answers unknown paths under the mail prefixes through renderMailError). */
export function useMailErrors(app: FastifyInstance): void {
  const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const response = renderMailError(error, errorSiteOf(request, error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? (reply.routeOptions.bodyLimit ?? bodyLimit) : bodyLimit));
    if (response.status >= 500) request.log.error({ err: error }, 'mail request failed');
    if (!reply.raw.headersSent && !reply.raw.destroyed) return reply.code(response.status).headers(response.headers).send(response.body);
    return reply;
  });
}
