import Fastify, { type FastifyInstance } from 'fastify';
import type { LogLevel } from './log.ts';
import { useJsonBodies } from './json-body.ts';
import type { ServiceContext, ServiceDefinition, ServiceHandle } from './service.ts';

/** ServerOptions shape the HTTP layer. */
export interface ServerOptions {
  readonly logLevel: LogLevel;
  /** Largest accepted request body, in bytes; larger ones get the family's 413. */
  readonly bodyLimit: number;
}

/** DEFAULT_BODY_LIMIT is the request body limit when none is configured (compute's own is 1 MiB... for JSON APIs; uploads stream). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** BuiltServer is the assembled HTTP server and the handles of its services' background work. */
export interface BuiltServer {
  readonly app: FastifyInstance;
  readonly handles: readonly ServiceHandle[];
}

/** buildServer assembles Fastify with every service in its own encapsulated context. */
export async function buildServer(context: ServiceContext, services: readonly ServiceDefinition[], options: ServerOptions): Promise<BuiltServer> {
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: options.bodyLimit,
    // Keep-alive sockets that are idle must not hold shutdown open.
    forceCloseConnections: 'idle',
    // Google clients put the same parameter twice rarely; keep arrays as given.
    routerOptions: { ignoreTrailingSlash: true },
  });
  useJsonBodies(app);
  app.get('/healthz', async () => ({ status: 'ok' }));
  const handles: ServiceHandle[] = [];
  for (const service of services) {
    await app.register(async (scope) => {
      const handle = await service.register(scope, context);
      if (handle) handles.push(handle);
    });
  }
  // Long polls (Operation wait, watches) must end before in-flight requests are awaited.
  app.addHook('preClose', async () => {
    await Promise.all(handles.map((handle) => handle.close()));
  });
  await app.ready();
  return { app, handles };
}
