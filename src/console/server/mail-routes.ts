/**
 * The mail view's routes: mailboxes, a page of messages (`q` as the API takes it), one message,
 * its HTML body as a document of its own under a CSP that allows no script, no form, no
 * request anywhere (images only as `data:` — remote ones only when the viewer asks, `remote=1`),
 * its source as an `.eml`, its attachments as downloads (never rendered in the console's origin).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../core/service.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { ConsoleError } from './errors.ts';
import { MailView } from './mail-view.ts';
import type { Sessions } from './sessions.ts';

/** HTML_BODY_CSP is the policy of a message's HTML: nothing runs, nothing is fetched but inline images and styles. */
export const HTML_BODY_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/** HTML_BODY_CSP_REMOTE is the same with remote images allowed (after the viewer asked for them). */
export const HTML_BODY_CSP_REMOTE = HTML_BODY_CSP.replace('img-src data:', 'img-src data: http: https:');

type MessageParams = { mailbox: string; id: string };

/** registerMailRoutes adds the mail view's routes. */
export function registerMailRoutes(app: FastifyInstance, context: ServiceContext, sessions: Sessions): void {
  const view = new MailView(context.store, context.clock);
  const base = `${CONSOLE_PREFIX}/api/mail`;

  app.get(`${base}/mailboxes`, async (request) => ({ mailboxes: await view.mailboxes(sessions.require(request)) }));

  app.get<{ Params: { mailbox: string } }>(`${base}/:mailbox/messages`, async (request) => {
    const mailbox = request.params.mailbox.toLowerCase();
    view.check(sessions.require(request), mailbox);
    const query = request.query as Record<string, unknown>;
    const q = optionalString(query, 'q');
    const pageToken = optionalString(query, 'pageToken');
    const size = optionalString(query, 'maxResults') ?? '50';
    if (!/^\d{1,3}$/.test(size) || Number(size) < 1 || Number(size) > 500) throw new ConsoleError(400, '"maxResults" must be a whole number from 1 to 500.');
    return view.list(mailbox, q, pageToken, Number(size));
  });

  app.get<{ Params: MessageParams }>(`${base}/:mailbox/messages/:id`, async (request) => {
    const mailbox = request.params.mailbox.toLowerCase();
    view.check(sessions.require(request), mailbox);
    return view.message(mailbox, request.params.id);
  });

  app.get<{ Params: MessageParams }>(`${base}/:mailbox/messages/:id/html`, async (request, reply) => {
    const mailbox = request.params.mailbox.toLowerCase();
    view.check(sessions.require(request), mailbox);
    const remote = optionalString(request.query as Record<string, unknown>, 'remote') === '1';
    const detail = await view.message(mailbox, request.params.id);
    if (detail.htmlPart === null) throw new ConsoleError(404, `Message ${request.params.id} has no HTML body.`);
    const body = await view.part(mailbox, request.params.id, detail.htmlPart);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', remote ? HTML_BODY_CSP_REMOTE : HTML_BODY_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .send(body);
  });

  app.get<{ Params: MessageParams }>(`${base}/:mailbox/messages/:id/raw`, async (request, reply) => {
    const mailbox = request.params.mailbox.toLowerCase();
    view.check(sessions.require(request), mailbox);
    const raw = await view.raw(mailbox, request.params.id);
    return reply
      .header('content-type', 'message/rfc822')
      .header('content-disposition', attachment(`${request.params.id}.eml`))
      .send(raw);
  });

  app.get<{ Params: MessageParams & { partId: string } }>(`${base}/:mailbox/messages/:id/attachments/:partId`, async (request, reply) => {
    const mailbox = request.params.mailbox.toLowerCase();
    view.check(sessions.require(request), mailbox);
    const part = await view.partInfo(mailbox, request.params.id, request.params.partId);
    const body = await view.part(mailbox, request.params.id, request.params.partId);
    // Always a download, never a document of this origin: an HTML or SVG attachment must not run here.
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', attachment(part.filename === '' ? `part-${part.partId}` : part.filename))
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(body);
  });
}

/** optionalString reads one query parameter given at most once. */
function optionalString(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new ConsoleError(400, `Parameter ${JSON.stringify(name)} is given more than once.`);
  return value;
}

/** attachment is a Content-Disposition naming a download safely (an ASCII fallback and the UTF-8 name). */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
