import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TlsOptions } from 'node:tls';
import type { InjectOptions, Response as InjectResponse } from 'light-my-request';
import { UnavailableError } from '../lib/errors.ts';
import { TransportProblemError } from './errors.ts';
import type { FamilyApp, FamilyAppSettings } from './family-app.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { FamilyErrors, MALFORMED_REQUEST, pathOf } from './family-errors.ts';
import { answerHealthCheck, HEALTH_PATH, isHealthCheck } from './health-check.ts';
import { loadOnFirstUse, type LoadOnFirstUse } from './lazy.ts';
import { coreLogger, REQUEST_DONE, type LogFormat, type LogLevel } from './log.ts';
import { aliasRewriter } from './path-aliases.ts';
import { recordRoutes } from './route-registry.ts';
import type { ServiceContext, ServiceDefinition } from './service.ts';
import { Singletons } from './singletons.ts';
import { serveTlsOnSamePort } from './tls/same-port.ts';

/** ServerOptions shape the HTTP layer. */
export interface ServerOptions {
  readonly logLevel: LogLevel;
  /** How log records are written (default text). */
  readonly logFormat?: LogFormat;
  /** Largest accepted request body, in bytes; larger ones get the family's 413. */
  readonly bodyLimit: number;
  /** How long a replica's leadership of singleton work lasts without renewal (default 10 s). */
  readonly leaderTtlMs?: number;
  /** The certificate, key and client CA of HTTPS on the same port (core/tls/same-port.ts), read at the first TLS connection; absent, plain HTTP only. */
  readonly tls?: () => Promise<TlsOptions>;
}

/** ServerContext is what core assembles before the server: everything a family gets but the singleton runner and dispatch, which the server adds. */
export type ServerContext = Omit<ServiceContext, 'singleton' | 'dispatch'>;

/** DEFAULT_BODY_LIMIT is the request body limit (1 MiB) when none is configured. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * KEEP_ALIVE_TIMEOUT_MS is how long an idle keep-alive connection stays open (Fastify's default,
 * above the 60 s that load balancers in front commonly keep theirs, so the server is not the one
 * to cut a connection the balancer still means to use).
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** WARM_UP_PAUSE_MS is the pause before each step of the background warm-up: pending requests are read first. */
const WARM_UP_PAUSE_MS = 5;

/** WARM_UP_MAX_WAIT_MS bounds how long a warm-up step waits for requests in flight to finish. */
const WARM_UP_MAX_WAIT_MS = 250;

/** FogbankServer is every family behind one HTTP server. */
export interface FogbankServer {
  /** The HTTP server every family answers on (listening once `listen` resolved). */
  readonly server: Server;
  listen(options: { readonly host: string; readonly port: number }): Promise<void>;
  /** inject answers a request without a socket (light-my-request), exactly as one sent over HTTP would be. */
  inject(options: InjectOptions | string): Promise<InjectResponse>;
  /** warmUp builds every family now and runs its deferred start-up work (ServiceHandle.warmUp). */
  warmUp(): Promise<void>;
  /**
   * warmUpInBackground does what warmUp does, one family and one step at a time, each step
   * waiting until no request is in flight (at most WARM_UP_MAX_WAIT_MS), so a request that
   * arrives meanwhile is not queued behind families it does not need. Failures are left to the
   * family's next request, which retries the build. `fogbank start` calls it after the ready line.
   */
  warmUpInBackground(): void;
  /** stateReplaced tells every family built so far that the store's whole state was replaced (ServiceHandle.stateReplaced). */
  stateReplaced(): Promise<void>;
  /** close stops every family's background work, ends idle connections, and resolves when in-flight requests are done. */
  close(): Promise<void>;
}

/**
 * buildServer puts every service behind one HTTP server. A request goes to the family owning its
 * path (the longest matching prefix, aliases rewritten to their canonical prefix; a path no
 * family owns gets core's neutral answer, neutral-error.ts), and each family is its own Fastify app, built the first time a request
 * reaches it (family-app.ts): `fogbank start` registers no route and loads no Fastify, so it is
 * ready about as fast as a bare Node server, and a family nobody calls costs nothing. Whatever is
 * answered before or outside a family's handlers is phrased by the family owning the path.
 */
export async function buildServer(serverContext: ServerContext, services: readonly ServiceDefinition[], options: ServerOptions): Promise<FogbankServer> {
  const errors = new FamilyErrors(services, options.bodyLimit);
  const logLevel = options.logLevel;
  const log = coreLogger(logLevel, options.logFormat ?? 'text');
  const unreadable = new WeakSet<Socket>();
  // A person who opens the server's address in a browser lands on the console (when one is served).
  const browserHome = services.find((service) => service.browserHome !== undefined)?.browserHome;
  const routed = aliasRewriter(services.flatMap((service) => service.pathAliases ?? []));
  // Which replica runs each singleton matters only when replicas share the store: say so in the log.
  const singletons = new Singletons(serverContext.store.leases, {
    ...(options.leaderTtlMs === undefined ? {} : { ttlMs: options.leaderTtlMs }),
    ...(serverContext.store.leases.shared
      ? { report: (name: string, running: boolean) => log('info', `this replica ${running ? 'now runs' : 'no longer runs'} ${name}`) }
      : {}),
  });
  // A request answered without a socket, as one sent over HTTP would be (`dispatch` is below).
  const injectRequest = async (injected: InjectOptions | string): Promise<InjectResponse> => (await import('light-my-request')).inject(dispatch, injected);
  const context: ServiceContext = { ...serverContext, singleton: singletons.run, dispatch: injectRequest };
  const settings: FamilyAppSettings = { logLevel, logFormat: options.logFormat ?? 'text', bodyLimit: options.bodyLimit, errors, unreadable, context };
  let closing = false;
  // While the background warm-up runs, requests in flight are counted so it can step aside.
  let warming = false;
  let inFlight = 0;
  let idle: (() => void)[] = [];
  const apps = new Map<ServiceDefinition, LoadOnFirstUse<FamilyApp>>(
    services.map((service) => [
      service,
      loadOnFirstUse(async () => {
        if (closing) throw new UnavailableError('The service is shutting down.');
        return (await import('./family-app.ts')).buildFamilyApp(service, settings);
      }),
    ]),
  );

  // Resolves after a pause, once no request is in flight or WARM_UP_MAX_WAIT_MS has passed
  // (long polls and watches stay in flight for minutes).
  const quiet = async (): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_PAUSE_MS).unref());
    if (inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WARM_UP_MAX_WAIT_MS).unref();
      idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  };

  const answerFailure = (error: unknown, request: IncomingMessage, response: ServerResponse): void => {
    const status = errors.answerResponse(error, request, response);
    if (status >= 500 && !(error instanceof UnavailableError))
      log('error', `a family could not start: ${String((error as Error | undefined)?.stack ?? error)}`);
  };

  const dispatch = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '/';
    if (isHealthCheck(request.method, url)) {
      const started = performance.now();
      void answerHealthCheck(context.store, response).then((status) => {
        if (logLevel !== 'silent') log('info', REQUEST_DONE, { method: request.method, url, statusCode: status, responseTime: performance.now() - started });
      });
      return;
    }
    if (
      browserHome !== undefined &&
      url === '/' &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      /\btext\/html\b/.test(request.headers.accept ?? '')
    ) {
      response.writeHead(302, { location: browserHome, 'content-length': '0', 'cache-control': 'no-store' }).end();
      return;
    }
    const owner = errors.familyFor(url.charCodeAt(0) === 0x2f ? url : pathOf(url));
    if (owner === undefined) {
      answerFailure(new TransportProblemError({ httpStatus: 404, kind: 'not-found', detail: pathOf(url) }), request, response);
      return;
    }
    const target = routed(url);
    // The client's own path stays in originalUrl (Fastify reads it from there): answers echo it.
    if (target !== url) {
      (request as { originalUrl?: string }).originalUrl = url;
      request.url = target;
    }
    if (warming) {
      inFlight++;
      response.once('close', () => {
        if (--inFlight > 0) return;
        for (const wake of idle) wake();
        idle = [];
      });
    }
    const app = apps.get(owner)!;
    const ready = app.ready();
    if (ready !== undefined) ready.app.routing(request, response);
    else
      app().then(
        (built) => built.app.routing(request, response),
        (error: unknown) => answerFailure(error, request, response),
      );
  };

  const server = createServer({ requireHostHeader: false }, dispatch);
  // Before any other connection listener: it takes Node's own over.
  if (options.tls !== undefined) serveTlsOnSamePort(server, options.tls);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // No limit on how long a request may take (watches and Operation waits are long polls).
  server.requestTimeout = 0;
  server.setTimeout(0);
  const drain = new ConnectionDrain(server);
  server.on('clientError', (error: Error, socket: Socket) => {
    unreadable.add(socket);
    errors.answerClientError(error, socket);
  });
  // What Node would otherwise answer (or drop) by itself: an unmet Expect, a CONNECT.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    errors.answerResponse(
      new TransportProblemError({ httpStatus: 417, kind: 'bad-request', detail: `Expectation '${String(request.headers.expect)}' is not supported.` }),
      request,
      response,
    );
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    errors.answerOnSocket({ httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST }, 'CONNECT', request.url ?? '/', socket);
  });

  const built = async (): Promise<FamilyApp[]> =>
    (await Promise.all([...apps.values()].map((app) => app.loaded()?.catch(() => undefined)))).filter((app) => app !== undefined);
  let closed: Promise<void> | undefined;
  const fogbank: FogbankServer = {
    server,
    listen: ({ host, port }) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    inject: injectRequest,
    warmUp: async () => {
      const families = await Promise.all([...apps.values()].map((app) => app()));
      await Promise.all(families.map((family) => family.handle?.warmUp?.()));
    },
    warmUpInBackground: () => {
      if (warming) return;
      warming = true;
      // Step by step: a family's build (its chunks and routes), then its own warm-up (seeding).
      const steps = [...apps.values()].flatMap((load) => [async () => void (await load()), async () => (await load()).handle?.warmUp?.()]);
      void (async () => {
        try {
          for (const step of steps) {
            await quiet();
            if (closing) return;
            await step().catch(() => undefined);
          }
        } finally {
          warming = false;
          inFlight = 0;
          idle = [];
        }
      })();
    },
    stateReplaced: async () => {
      await Promise.all((await built()).map((family) => family.handle?.stateReplaced?.()));
    },
    close: () =>
      (closed ??= (async () => {
        closing = true;
        // Long polls (Operation wait, watches) end before in-flight requests are awaited.
        await Promise.all((await built()).map((family) => family.app.close()));
        await singletons.close();
        drain.drain();
        if (!server.listening) return;
        const ended = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await ended;
      })()),
  };
  // Core's own, then each built family's (a failed build is no family's: the next request retries it).
  recordRoutes(fogbank, () => [
    { method: 'GET', url: HEALTH_PATH, family: undefined },
    { method: 'HEAD', url: HEALTH_PATH, family: undefined },
    ...[...apps.values()].flatMap((app) => app.ready()?.routes ?? []),
  ]);
  return fogbank;
}
