import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyLogger, quietLogController, useRequestLog, type LogFormat, type LogLevel } from './log.ts';
import { useJsonBodies } from './json-body.ts';
import type { ServiceContext, ServiceDefinition, ServiceHandle } from './service.ts';

/** ServerOptions shape the HTTP layer. */
export interface ServerOptions {
  readonly logLevel: LogLevel;
  /** How log records are written (default text). */
  readonly logFormat?: LogFormat;
  /** Largest accepted request body, in bytes; larger ones get the family's 413. */
  readonly bodyLimit: number;
}

/** DEFAULT_BODY_LIMIT is the request body limit (1 MiB) when none is configured. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * buildServer assembles Fastify with every service in its own encapsulated context; closing the
 * app first stops the services' background work (their handles), then drains requests.
 */
export async function buildServer(context: ServiceContext, services: readonly ServiceDefinition[], options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: fastifyLogger(options.logLevel, options.logFormat ?? 'text'),
    logController: quietLogController(),
    bodyLimit: options.bodyLimit,
    // Keep-alive sockets that are idle must not hold shutdown open.
    forceCloseConnections: 'idle',
    // `/x/` and `/x` name the same resource, as on Google's front ends.
    routerOptions: { ignoreTrailingSlash: true },
  });
  if (options.logLevel !== 'silent') useRequestLog(app);
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
  return app;
}
