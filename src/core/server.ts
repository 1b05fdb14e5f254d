import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { TransportProblemError } from './errors.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { FamilyErrors, frameworkProblemOf, MALFORMED_REQUEST, pathOf } from './family-errors.ts';
import { fastifyLogger, quietLogController, useRequestLog, type LogFormat, type LogLevel } from './log.ts';
import { useJsonBodies } from './json-body.ts';
import { aliasRewriter } from './path-aliases.ts';
import { RouteRecorder } from './route-registry.ts';
import { SCHEMA_COMPILERS } from './schema-compilers.ts';
import type { ServiceContext, ServiceDefinition, ServiceHandle } from './service.ts';
import { Singletons } from './singletons.ts';

/** ServerOptions shape the HTTP layer. */
export interface ServerOptions {
  readonly logLevel: LogLevel;
  /** How log records are written (default text). */
  readonly logFormat?: LogFormat;
  /** Largest accepted request body, in bytes; larger ones get the family's 413. */
  readonly bodyLimit: number;
  /** How long a replica's leadership of singleton work lasts without renewal (default 10 s). */
  readonly leaderTtlMs?: number;
}

/** ServerContext is what core assembles before the server: everything a family gets but the singleton runner, which the server adds. */
export type ServerContext = Omit<ServiceContext, 'singleton'>;

/** DEFAULT_BODY_LIMIT is the request body limit (1 MiB) when none is configured. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * MAX_PARAM_LENGTH lifts the router's 100-character limit on a path segment (it answers 414 on
 * its own): segments are bounded by Node's header size, and each family judges its names.
 */
const MAX_PARAM_LENGTH = 64 * 1024;

/**
 * buildServer assembles Fastify with every service in its own encapsulated context; closing the
 * app first stops the services' background work (their handles), then drains requests. Anything
 * answered before or outside a family's handlers is phrased by the family owning the path.
 */
export async function buildServer(serverContext: ServerContext, services: readonly ServiceDefinition[], options: ServerOptions): Promise<FastifyInstance> {
  const errors = new FamilyErrors(services, options.bodyLimit);
  // Sockets whose later bytes Node could not parse: an earlier request on them must not run.
  const unreadable = new WeakSet<Socket>();
  const routed = aliasRewriter(services.flatMap((service) => service.pathAliases ?? []));
  const app = Fastify({
    logger: fastifyLogger(options.logLevel, options.logFormat ?? 'text'),
    logController: quietLogController(),
    schemaController: { compilersFactory: SCHEMA_COMPILERS },
    bodyLimit: options.bodyLimit,
    // Keep-alive sockets that are idle must not hold shutdown open.
    forceCloseConnections: 'idle',
    // Requests still arriving while closing are served by the family, not by a bare Fastify 503.
    return503OnClosing: false,
    // Node would answer a missing Host with a bare 400 of its own; useRequestGuard answers it in the family's dialect.
    http: { requireHostHeader: false },
    // `/x/` and `/x` name the same resource, as on Google's front ends.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // A family's alias prefixes are routed as its canonical ones (path-aliases.ts).
    rewriteUrl: (request) => routed(request.url ?? '/'),
    frameworkErrors: (error, request, reply) => errors.reply(new TransportProblemError(frameworkProblemOf(error)), request, reply),
    clientErrorHandler: (error, socket) => {
      unreadable.add(socket as Socket);
      errors.answerClientError(error, socket as Socket);
    },
  });
  const drain = new ConnectionDrain(app.server);
  // What Node would otherwise answer (or drop) by itself: an unmet Expect, a CONNECT.
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    errors.answerResponse({ httpStatus: 417, kind: 'bad-request', detail: `Expectation '${String(request.headers.expect)}' is not supported.` }, request, response);
  });
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    errors.answerOnSocket({ httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST }, 'CONNECT', request.url ?? '/', socket);
  });
  // Which replica runs each singleton matters only when replicas share the store: say so in the log.
  const singletons = new Singletons(serverContext.store.leases, {
    ...(options.leaderTtlMs === undefined ? {} : { ttlMs: options.leaderTtlMs }),
    ...(serverContext.store.leases.shared ? { report: (name: string, running: boolean) => app.log.info(`this replica ${running ? 'now runs' : 'no longer runs'} ${name}`) } : {}),
  });
  const context: ServiceContext = { ...serverContext, singleton: singletons.run };
  const routes = new RouteRecorder(app);
  if (options.logLevel !== 'silent') useRequestLog(app);
  useJsonBodies(app);
  useRequestGuard(app, unreadable);
  app.setNotFoundHandler((request, reply) => errors.reply(new TransportProblemError({ httpStatus: 404, kind: 'not-found', detail: request.originalUrl.split('?')[0] ?? request.originalUrl }), request, reply));
  app.setErrorHandler((error, request, reply) => errors.reply(error, request, reply));
  // Load balancers take a replica whose database is unreachable out of rotation on the 503.
  app.get('/healthz', async (_request, reply) => {
    const store = await context.store.health().catch((error: unknown) => ({ backend: context.store.backend, ok: false, detail: String(error) }));
    return reply.code(store.ok ? 200 : 503).send({ status: store.ok ? 'ok' : 'unavailable', store });
  });
  const handles: ServiceHandle[] = [];
  for (const service of services) {
    await routes.during(service.name, async () => {
      await app.register(async (scope) => {
        const handle = await service.register(scope, context);
        if (handle) handles.push(handle);
      });
    });
  }
  useUnknownPaths(app, errors, context);
  warmUps.set(app, () => Promise.all(handles.map((handle) => handle.warmUp?.())).then(() => undefined));
  // Long polls (Operation wait, watches) must end before in-flight requests are awaited.
  app.addHook('preClose', async () => {
    await Promise.all(handles.map((handle) => handle.close()));
    await singletons.close();
    drain.drain();
  });
  await app.ready();
  return app;
}

const warmUps = new WeakMap<FastifyInstance, () => Promise<void>>();

/**
 * useUnknownPaths readies the one not-found handler (core's, for every family: Fastify inserts a
 * not-found handler for every HTTP method on two paths, which made the scoped ones families had a
 * good part of start-up). The owning family screens the request first (screenUnknownPath). A body
 * of a type no parser reads is left unread rather than refused with 415: whatever it holds, the
 * answer is that the path is unknown. Both are added after the families, so they reach only
 * core's own context (its 404 handler and /healthz), not the families' routes.
 */
function useUnknownPaths(app: FastifyInstance, errors: FamilyErrors, context: ServiceContext): void {
  app.addHook('onRequest', async (request) => {
    if (!request.is404) return;
    await errors.familyFor(pathOf(request.originalUrl))?.screenUnknownPath?.(request, context);
  });
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

/**
 * warmUp runs every family's deferred start-up work (ServiceHandle.warmUp) once and resolves when
 * it is done: the server is then settled, with no write pending that no request asked for.
 */
export function warmUp(app: FastifyInstance): Promise<void> {
  return warmUps.get(app)?.() ?? Promise.resolve();
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
