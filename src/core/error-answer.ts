import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathOf, type FamilyErrors } from './family-errors.ts';
import type { ErrorResponse, ErrorSite, ServiceDefinition } from './service.ts';

/** ErrorAnswer answers one error of a family app's request; it is the app's error, not-found and framework-error handler alike. */
export type ErrorAnswer = (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

const asIs = (text: string): string => text;

/**
 * errorAnswer is the one way a family app answers an error (family-app.ts installs it for every
 * family): the family's renderError phrases it, and it goes out exactly as phrased — the media
 * type as given (Fastify would append a charset to a bare JSON type) and the body as one string,
 * which Node writes with the headers. An answer that already started (a watch, a streamed
 * download) cannot take a second one: the failure is logged and a response left incomplete is cut
 * off, so the client sees a broken answer rather than a complete-looking one.
 */
export function errorAnswer(service: ServiceDefinition, errors: FamilyErrors, bodyLimit: number): ErrorAnswer {
  return (error, request, reply) => {
    // Fastify judged the body against the route's own limit, which the 413 names.
    const limit = (error as { code?: unknown } | null)?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? (reply.routeOptions.bodyLimit ?? bodyLimit) : bodyLimit;
    const response = renderSafely(service, errors, error, request, limit);
    const raw = reply.raw;
    const started = raw.headersSent;
    if (started) request.log.error({ err: error }, `${service.name} request failed after its answer had started`);
    else if (response.status >= 500) request.log.error({ err: error }, `${service.name} request failed`);
    // Too late for an answer (or the client is gone): end the connection if the answer is incomplete.
    if (started || raw.destroyed) {
      if (!raw.writableEnded) raw.destroy();
      return undefined;
    }
    const text = service.encodeError?.(response.body, request) ?? JSON.stringify(response.body);
    return reply.code(response.status).headers(response.headers).serializer(asIs).send(text);
  };
}

/** errorSiteOf describes a request for a family's renderError: the path is the one the client sent (before any alias was rewritten), without query or authority. */
function errorSiteOf(request: FastifyRequest, bodyLimit: number): ErrorSite {
  return { method: request.method, path: pathOf(request.originalUrl), contentType: request.headers['content-type'], bodyLimit };
}

/** renderSafely asks the family to phrase `error`; a serializer that throws gets core's last-resort answer instead of none. */
function renderSafely(service: ServiceDefinition, errors: FamilyErrors, error: unknown, request: FastifyRequest, bodyLimit: number): ErrorResponse {
  const site = errorSiteOf(request, bodyLimit);
  try {
    return service.renderError(error, site);
  } catch {
    return errors.render(error, site.method, site.path, site.contentType);
  }
}
