import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { errorAnswer } from './error-answer.ts';
import { TransportProblemError } from './errors.ts';
import { frameworkProblemOf, MALFORMED_REQUEST, type FamilyErrors } from './family-errors.ts';
import { fastifyLogger, useRequestLog, type LogFormat, type LogLevel } from './log.ts';
import { useJsonBodies } from './json-body.ts';
import type { RegisteredRoute } from './route-registry.ts';
import { SCHEMA_COMPILERS } from './schema-compilers.ts';
import type { ServiceContext, ServiceDefinition, ServiceHandle } from './service.ts';
import { drainUnreadBody } from './unread-body.ts';
import { useFaults } from './faults/hook.ts';
import { capturedBodiesOf, useBodyCapture } from './journal-bodies.ts';
import type { RequestJournal } from './journal.ts';
import { firedFaultOf, journalPayloadOf, useRequestInfo } from './request-info.ts';
import type { Clock } from '../lib/clock.ts';

/**
 * A family's own Fastify app: its routes, hooks and error dialect, built the first time a request
 * reaches the family (server.ts dispatches by path prefix) and never listening itself. This module
 * is loaded with the first family built, and Fastify with it: building the route tables of every
 * family was most of `fogbank start`'s time, and a family nobody calls never pays it.
 */

/** FamilyAppSettings are what every family app shares: the server's options and core's answers. */
export interface FamilyAppSettings {
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly bodyLimit: number;
  /** errors is core's last resort when a family's renderError itself fails. */
  readonly errors: FamilyErrors;
  /** Sockets whose later bytes Node could not parse: an earlier request on them must not run. */
  readonly unreadable: WeakSet<Socket>;
  readonly context: ServiceContext;
}

/** FamilyApp is a built family: the app that routes its requests, what its `register` handed back, and the routes it registered. */
export interface FamilyApp {
  readonly app: FastifyInstance;
  readonly handle: ServiceHandle | undefined;
  readonly routes: readonly RegisteredRoute[];
}

/**
 * MAX_PARAM_LENGTH lifts the router's 100-character limit on a path segment (it answers 414 on
 * its own): segments are bounded by Node's header size, and each family judges its names.
 */
const MAX_PARAM_LENGTH = 64 * 1024;

/**
 * buildFamilyApp registers `service` in an app of its own. Requests reach it through
 * `app.routing(request, response)`; the app is given an http.Server that never listens (Fastify
 * wants one), so the connection-level events stay with the server core listens on.
 */
export async function buildFamilyApp(service: ServiceDefinition, settings: FamilyAppSettings): Promise<FamilyApp> {
  const { context } = settings;
  // The app's one error handler: the family phrases, core answers (error-answer.ts).
  const answer = errorAnswer(service, settings.errors, settings.bodyLimit);
  const app = Fastify({
    logger: fastifyLogger(settings.logLevel, settings.logFormat),
    // Fastify's own two records per request are off: useRequestLog writes one instead.
    logController: new LogController({ disableRequestLogging: true }),
    schemaController: { compilersFactory: SCHEMA_COMPILERS },
    bodyLimit: settings.bodyLimit,
    // Requests still arriving while closing are served by the family, not by a bare Fastify 503.
    return503OnClosing: false,
    // `/x/` and `/x` name the same resource, as on Google's front ends.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error, request, reply) => answer(new TransportProblemError(frameworkProblemOf(error)), request, reply),
    serverFactory: (): Server => createServer(),
  });
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method])
      routes.push({ method: String(method), url: route.url, family: service.name });
  });
  // Each request's one RequestInfo (request-info.ts): a slot every request has, filled by its first reader.
  useRequestInfo(app);
  if (settings.logLevel !== 'silent') useRequestLog(app);
  const journal = context.control?.requests.journal;
  // A journal of size 0 is off: no hook at all.
  if (journal !== undefined && journal.capacity > 0 && service.journaled !== false) {
    if (journal.bodyLimit > 0) useBodyCapture(app, journal.bodyLimit);
    useJournal(app, journal, service.name, context.clock);
  }
  useJsonBodies(app);
  useRequestGuard(app, settings.unreadable);
  // An answer sent before the body was read waits for the rest of it (bounded): closing on unread
  // bytes resets the connection, and the client could lose the answer (unread-body.ts). Errors
  // refused early are the common case, but a success counts too: a GET or HEAD route reads no
  // body, and a `Connection: close` answer to one sent with a large body closes on it just the same.
  // A callback hook with a synchronous path for the common case (the body was read): a promise
  // per request showed in the GET profile.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) done(null, payload);
    else void drainUnreadBody(raw).then(() => done(null, payload));
  });
  app.setNotFoundHandler((request, reply) =>
    answer(new TransportProblemError({ httpStatus: 404, kind: 'not-found', detail: request.originalUrl.split('?')[0] ?? request.originalUrl }), request, reply),
  );
  app.setErrorHandler(answer);
  useFaults(app, service, context);
  let handle: ServiceHandle | undefined;
  await app.register(async (scope) => {
    handle = (await service.register(scope, context)) ?? undefined;
  });
  useUnknownPaths(app, service, context);
  // Long polls (Operation wait, watches) end before the server waits for in-flight requests.
  app.addHook('preClose', async () => {
    await handle?.close();
  });
  await app.ready();
  return { app, handle, routes };
}

/**
 * useJournal records every answered request of the family in the journal once its answer is
 * finished: one object per request, the rest is worked out when the journal is read
 * (journal-view.ts). A callback hook, as a promise per request adds up.
 */
function useJournal(app: FastifyInstance, journal: RequestJournal, family: string, clock: Clock): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The strings a record keeps are shared with the records before it (journal.shared).
    const url = journal.shared(request.originalUrl);
    const routed = request.url;
    journal.record({
      time: clock.now(),
      family,
      httpMethod: request.method,
      url,
      routedUrl: routed === request.originalUrl ? url : journal.shared(routed),
      authorization: journal.shared(request.headers.authorization),
      status: reply.statusCode,
      latencyMs: Math.round(reply.elapsedTime * 1000) / 1000,
      fault: firedFaultOf(request) ?? null,
      ...journalPayloadOf(request),
      ...(journal.bodyLimit > 0 ? capturedBodiesOf(request.raw) : {}),
    });
    done();
  });
}

/**
 * useUnknownPaths readies the family's not-found answer: the family screens the request first
 * (screenUnknownPath), and a body of a type no parser reads is left unread rather than refused with
 * 415: whatever it holds, the answer is that the path is unknown. Both are added after the family
 * registered, so they reach only the app's own context (its 404 handler), not the family's routes.
 */
function useUnknownPaths(app: FastifyInstance, service: ServiceDefinition, context: ServiceContext): void {
  const screen = service.screenUnknownPath;
  if (screen !== undefined) {
    // A callback hook: only a request for an unknown path waits for the screen.
    app.addHook('onRequest', (request, _reply, done) => {
      if (!request.is404) done();
      else Promise.resolve(screen(request, context)).then(() => done(), done);
    });
  }
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

/**
 * useRequestGuard refuses an HTTP/1.1 request without Host, and stops a request whose body was
 * sent without Content-Length or Transfer-Encoding (so HTTP says it has none, and its "body"
 * arrives as an unreadable next request): Node reports that unreadable request in the same pass
 * that delivered this one, so after one microtask the socket is known bad, the client has its
 * 400, and this request must not run — otherwise it would change state while the client reads a
 * failure. A request that names a Content-Type but frames no body is suspect, so it also waits
 * one turn of the event loop for bytes that were already on their way.
 */
function useRequestGuard(app: FastifyInstance, unreadable: WeakSet<Socket>): void {
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    const { headers } = request;
    const suspect = headers['content-type'] !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;
    const decide = (): void => {
      // The clientError answer already went out on this socket and it is closing.
      if (unreadable.has(socket)) void reply.hijack();
      done();
    };
    // HTTP/1.1 requires Host (Node's own check is off so that this answer is the family's).
    if (headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(new TransportProblemError({ httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST }));
      return;
    }
    if (suspect) setImmediate(decide);
    else queueMicrotask(decide);
  });
}
