/**
 * The console's routes (built on its first request): the page and its two files, sign-in and
 * sign-out, the live stream, and the JSON API under `/_fogbank/console/api/` that the views read
 * (session cookie, checked per request; changes also need the page's Origin and the CSRF token).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { consoleAssets, PAGE_CSP, SECURITY_HEADERS } from './assets.ts';
import { registerClusterRoutes } from './cluster-routes.ts';
import { registerComputeRoutes } from './compute-routes.ts';
import { registerControlRoutes } from './control-routes.ts';
import { ConsoleError } from './errors.ts';
import { registerMailRoutes } from './mail-routes.ts';
import { registerPublisherRoutes } from './publisher-routes.ts';
import { checkOrigin } from './origin.ts';
import { Sessions } from './sessions.ts';
import { JournalRing, LiveStreams } from './stream.ts';
import { sameSecret, signInTicket } from './ticket.ts';

/** registerConsole adds the console's routes; its handle ends the live streams on close. */
export async function registerConsole(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle> {
  const sessions = new Sessions(context.auth);
  const control = context.control;
  const ring = control === undefined ? undefined : new JournalRing(control.requests);
  const streams = ring === undefined ? undefined : new LiveStreams(context.store, ring);
  let ticketUsed = false;

  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  const page = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-cache')
      .send(consoleAssets(CONSOLE_PREFIX).page);
  app.get(`${CONSOLE_PREFIX}/`, page);

  app.get<{ Params: { file: string } }>(`${CONSOLE_PREFIX}/assets/:file`, async (request, reply) => {
    const file = consoleAssets(CONSOLE_PREFIX).files.get(request.params.file);
    if (file === undefined) throw new ConsoleError(404, `No console file ${JSON.stringify(request.params.file)}.`);
    reply.header('etag', file.etag).header('cache-control', 'public, max-age=31536000, immutable');
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.header('content-type', file.type).send(file.body);
  });

  // The banner's link: once per server start it signs the browser in as the admin.
  app.get(`${CONSOLE_PREFIX}/sign-in`, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const ticket = typeof query['ticket'] === 'string' ? query['ticket'] : '';
    if (ticket === '' || !sameSecret(ticket, signInTicket(context.auth.adminToken)))
      throw new ConsoleError(401, 'This sign-in link is not this server’s: sign in with a token on the console page.');
    if (ticketUsed) throw new ConsoleError(401, 'This sign-in link was used already: sign in with a token on the console page.');
    ticketUsed = true;
    sessions.open(context.auth.adminToken, request, reply, CONSOLE_PREFIX);
    return reply.redirect(`${CONSOLE_PREFIX}/`, 303);
  });

  // Whether the page is signed in is a question, not an error: a page without a session learns it from a 200.
  app.get(`${CONSOLE_PREFIX}/api/session`, async (request) => {
    const signedIn = sessions.find(request);
    return signedIn === undefined ? { signedIn: false } : describe(signedIn);
  });
  app.post(`${CONSOLE_PREFIX}/api/session`, async (request, reply) => {
    checkOrigin(request);
    const body = request.body;
    const token = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['token'] : undefined;
    if (typeof token !== 'string' || token === '' || token.length > 4096) throw new ConsoleError(400, 'Send {"token": "<a token this server issued>"}.');
    return reply.code(201).send(describe(sessions.open(token, request, reply, CONSOLE_PREFIX)));
  });
  app.delete(`${CONSOLE_PREFIX}/api/session`, async (request, reply) => {
    sessions.close(sessions.requireMutation(request, false), request, reply, CONSOLE_PREFIX);
    return reply.code(204).send();
  });

  app.get(`${CONSOLE_PREFIX}/api/stream`, async (request, reply) => {
    const signedIn = sessions.require(request);
    if (!/\btext\/event-stream\b/i.test(request.headers.accept ?? ''))
      throw new ConsoleError(406, 'The console stream is server-sent events: send Accept: text/event-stream.');
    if (streams === undefined) throw new ConsoleError(503, 'This server was built without test controls: the console has no live stream.');
    return streams.follow(request, reply, signedIn);
  });

  registerMailRoutes(app, context, sessions);
  registerComputeRoutes(app, context, sessions);
  registerPublisherRoutes(app, context.store, sessions);
  registerClusterRoutes(app, context.store, sessions);
  if (control !== undefined) registerControlRoutes(app, control, sessions);
  return {
    async close() {
      streams?.closeAll();
      ring?.stop();
    },
  };
}

/** describe is what the page learns about its session: who, whether admin, and the CSRF token for its changes. */
function describe(signedIn: ReturnType<Sessions['require']>) {
  return { signedIn: true, principal: signedIn.principal.email, admin: signedIn.admin, csrf: signedIn.session.csrf };
}
