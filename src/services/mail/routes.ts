import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../core/auth.ts';
import type { CompletedUpload, UploadEngine, UploadMethod } from '../../core/uploads/index.ts';
import { authorizeMail, MAIL_SCOPES } from './access.ts';
import type { ComposeService } from './compose-service.ts';
import { stringListField } from './body-fields.ts';
import { invalidArgument, rawRequired } from './errors.ts';
import type { ListOptions, MailboxService } from './mailbox-service.ts';
import type { RawSource } from './message-files.ts';
import { SYSTEM_LABELS, SYSTEM_LABEL_IDS } from './model.ts';
import { readFormat } from './render.ts';

/** MESSAGE_MEDIA is the mail methods' mediaUpload descriptor (discovery: accept message/*, maxSize 36700160 = 35 MiB). */
export const MESSAGE_MEDIA = { accept: ['message/*'], maxSize: 36_700_160 } as const;

/** JSON_WRITE_LIMIT lets a metadata-address write carry a 35 MiB message as base64url `raw`. */
const JSON_WRITE_LIMIT = Math.ceil((MESSAGE_MEDIA.maxSize * 4) / 3) + 64 * 1024;

/** MailRoutes are the services the routes call. */
export interface MailRoutes {
  readonly auth: Authenticator;
  /** Sending and drafts: loaded with the first write (the MIME stack is most of the family's code). */
  readonly compose: () => Promise<ComposeService>;
  readonly mailboxes: MailboxService;
}

type Params = Record<string, string>;
type Query = Record<string, unknown>;

/** registerMetadataRoutes serves the metadata address (`/gmail/v1`, `/mail/v1`): every method with JSON bodies. */
export function registerMetadataRoutes(app: FastifyInstance, routes: MailRoutes): void {
  const { auth, compose, mailboxes } = routes;
  const access = (request: FastifyRequest, scopes: readonly string[], method: string) => authorizeMail(auth, request, scopes, method);
  const params = (request: FastifyRequest): Params => request.params as Params;
  const query = (request: FastifyRequest): Query => (request.query ?? {}) as Query;
  const body = (request: FastifyRequest): Record<string, unknown> =>
    typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};

  app.post('/users/:userId/messages/send', { bodyLimit: JSON_WRITE_LIMIT }, async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.send, 'caribou.api.proto.MailboxService.SendMessage');
    const message = body(request);
    return (await compose()).send(mailbox, rawFrom(message), stringOf(message['threadId']));
  });
  app.get('/users/:userId/messages', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.ListMessages');
    const page = await mailboxes.list(mailbox, listOptions(query(request)));
    return {
      ...(page.items.length === 0 ? {} : { messages: page.items.map((m) => ({ id: m.id, threadId: m.threadId })) }),
      ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }),
      resultSizeEstimate: page.total,
    };
  });
  app.get('/users/:userId/messages/:id', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.GetMessage');
    const q = query(request);
    return mailboxes.render(await mailboxes.message(mailbox, params(request)['id']!), readFormat(q['format']), listOf(q['metadataHeaders']));
  });
  app.post('/users/:userId/messages/:id/modify', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.modify, 'caribou.api.proto.MailboxService.ModifyMessage');
    const b = body(request);
    const message = await mailboxes.modify(mailbox, params(request)['id']!, stringListField(b, 'addLabelIds'), stringListField(b, 'removeLabelIds'));
    return { id: message.id, threadId: message.threadId, labelIds: message.labelIds };
  });
  for (const [action, add, remove] of [
    ['trash', ['TRASH'], []],
    ['untrash', [], ['TRASH']],
  ] as const) {
    app.post(`/users/:userId/messages/:id/${action}`, async (request) => {
      const { mailbox } = access(request, MAIL_SCOPES.modify, `caribou.api.proto.MailboxService.${action === 'trash' ? 'TrashMessage' : 'UntrashMessage'}`);
      const message = await mailboxes.modify(mailbox, params(request)['id']!, add, remove);
      return { id: message.id, threadId: message.threadId, labelIds: message.labelIds };
    });
  }
  app.delete('/users/:userId/messages/:id', async (request, reply) => {
    const { mailbox } = access(request, MAIL_SCOPES.deleteForever, 'caribou.api.proto.MailboxService.DeleteMessage');
    await mailboxes.delete(mailbox, params(request)['id']!);
    return reply.code(204).send();
  });
  app.get('/users/:userId/messages/:messageId/attachments/:id', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.GetAttachment');
    return mailboxes.attachment(mailbox, params(request)['messageId']!, params(request)['id']!);
  });

  app.post('/users/:userId/drafts', { bodyLimit: JSON_WRITE_LIMIT }, async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.CreateDraft');
    const message = draftMessage(body(request));
    return (await compose()).createDraft(mailbox, rawFrom(message), stringOf(message['threadId']));
  });
  app.put('/users/:userId/drafts/:id', { bodyLimit: JSON_WRITE_LIMIT }, async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.UpdateDraft');
    const message = draftMessage(body(request));
    return (await compose()).updateDraft(mailbox, params(request)['id']!, rawFrom(message), stringOf(message['threadId']));
  });
  app.post('/users/:userId/drafts/send', { bodyLimit: JSON_WRITE_LIMIT }, async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.SendDraft');
    const b = body(request);
    const message = typeof b['message'] === 'object' && b['message'] !== null ? (b['message'] as Record<string, unknown>) : undefined;
    const raw = message !== undefined && message['raw'] !== undefined ? rawFrom(message) : undefined;
    return (await compose()).sendDraft(mailbox, draftIdOf(b), raw, stringOf(message?.['threadId']));
  });
  app.get('/users/:userId/drafts', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftRead, 'caribou.api.proto.MailboxService.ListDrafts');
    const page = await mailboxes.drafts(mailbox, listOptions(query(request)));
    return {
      ...(page.items.length === 0
        ? {}
        : { drafts: page.items.map(({ draft, message }) => ({ id: draft.id, message: { id: message.id, threadId: message.threadId } })) }),
      ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }),
      resultSizeEstimate: page.total,
    };
  });
  app.get('/users/:userId/drafts/:id', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftRead, 'caribou.api.proto.MailboxService.GetDraft');
    const { draft, message } = await mailboxes.draft(mailbox, params(request)['id']!);
    return { id: draft.id, message: await mailboxes.render(message, readFormat(query(request)['format']), []) };
  });
  app.delete('/users/:userId/drafts/:id', async (request, reply) => {
    const { mailbox } = access(request, MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.DeleteDraft');
    await (await compose()).deleteDraft(mailbox, params(request)['id']!);
    return reply.code(204).send();
  });

  app.get('/users/:userId/threads', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.ListThreads');
    const page = await mailboxes.threads(mailbox, listOptions(query(request)));
    return {
      ...(page.items.length === 0 ? {} : { threads: page.items.map((t) => ({ id: t.id, snippet: t.snippet, historyId: String(t.historyId) })) }),
      ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }),
      resultSizeEstimate: page.total,
    };
  });
  app.get('/users/:userId/threads/:id', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.GetThread');
    const q = query(request);
    const messages = await mailboxes.thread(mailbox, params(request)['id']!);
    const rendered = await Promise.all(messages.map((message) => mailboxes.render(message, readFormat(q['format']), listOf(q['metadataHeaders']))));
    return { id: params(request)['id'], historyId: String(Math.max(...messages.map((m) => m.historyId))), messages: rendered };
  });

  app.get('/users/:userId/labels', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.labelsRead, 'caribou.api.proto.MailboxService.ListLabels');
    const user = await mailboxes.labels(mailbox);
    return { labels: [...SYSTEM_LABELS.map((label) => ({ ...label, name: label.id, type: 'system' })), ...user.map((label) => ({ ...label, type: 'user' }))] };
  });
  app.get('/users/:userId/labels/:id', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.labelsRead, 'caribou.api.proto.MailboxService.GetLabel');
    const id = params(request)['id']!;
    const system = SYSTEM_LABELS.find((label) => label.id === id);
    const user = system === undefined ? (await mailboxes.labels(mailbox)).find((label) => label.id === id) : undefined;
    if (system === undefined && user === undefined) throw invalidArgument(`Invalid label: ${id}`);
    const shape = system !== undefined ? { ...system, name: system.id, type: 'system' } : { ...user!, type: 'user' };
    return { ...shape, ...(await mailboxes.labelCounts(mailbox, id)) };
  });
  app.post('/users/:userId/labels', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.labelsWrite, 'caribou.api.proto.MailboxService.CreateLabel');
    return { ...(await mailboxes.createLabel(mailbox, body(request))), type: 'user' };
  });
  app.delete('/users/:userId/labels/:id', async (request, reply) => {
    const { mailbox } = access(request, MAIL_SCOPES.labelsWrite, 'caribou.api.proto.MailboxService.DeleteLabel');
    const id = params(request)['id']!;
    if (SYSTEM_LABEL_IDS.has(id)) throw invalidArgument('Invalid delete request');
    await mailboxes.deleteLabel(mailbox, id);
    return reply.code(204).send();
  });

  app.get('/users/:userId/profile', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.profile, 'caribou.api.proto.MailboxService.GetProfile');
    return mailboxes.profile(mailbox);
  });
  app.get('/users/:userId/history', async (request) => {
    const { mailbox } = access(request, MAIL_SCOPES.read, 'caribou.api.proto.MailboxService.ListHistory');
    const q = query(request);
    const start = stringOf(q['startHistoryId']);
    if (start === undefined || !/^\d+$/.test(start)) throw invalidArgument('Invalid startHistoryId');
    return mailboxes.history(
      mailbox,
      Number(start),
      listOf(q['historyTypes']),
      stringOf(q['labelId']),
      maxResults(q['maxResults'], 100),
      stringOf(q['pageToken']),
    );
  });
}

/** registerUploadRoutes serves the upload addresses of the three write methods plus drafts.update, over every upload protocol. */
export function registerUploadRoutes(app: FastifyInstance, engine: UploadEngine, routes: MailRoutes, defaultProtocol: 'resumable' | undefined): void {
  const { auth, compose } = routes;
  type Context = { mailbox: string; draftId?: string };
  const method = (
    id: string,
    scopes: readonly string[],
    rpc: string,
    complete: (upload: CompletedUpload, context: Context) => Promise<unknown>,
  ): UploadMethod<Context> => ({
    id,
    limits: MESSAGE_MEDIA,
    begin: (request) => {
      const { mailbox } = authorizeMail(auth, request, scopes, rpc);
      const draftId = (request.params as Params)['id'];
      return draftId === undefined ? { mailbox } : { mailbox, draftId };
    },
    complete: async (upload, context) => ({ status: 200, body: await complete(upload, context) }),
  });
  const file = (upload: CompletedUpload): RawSource => ({ kind: 'file', path: upload.media.path });
  const draftMeta = (upload: CompletedUpload): Record<string, unknown> =>
    typeof upload.metadata['message'] === 'object' && upload.metadata['message'] !== null ? (upload.metadata['message'] as Record<string, unknown>) : {};
  engine.route(
    app,
    'POST',
    '/users/:userId/messages/send',
    method('gmail.users.messages.send', MAIL_SCOPES.send, 'caribou.api.proto.MailboxService.SendMessage', async (upload, c) =>
      (await compose()).send(c.mailbox, file(upload), stringOf(upload.metadata['threadId']), upload.signal),
    ),
    defaultProtocol,
  );
  engine.route(
    app,
    'POST',
    '/users/:userId/drafts',
    method('gmail.users.drafts.create', MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.CreateDraft', async (upload, c) =>
      (await compose()).createDraft(c.mailbox, file(upload), stringOf(draftMeta(upload)['threadId']), upload.signal),
    ),
    defaultProtocol,
  );
  engine.route(
    app,
    'POST',
    '/users/:userId/drafts/send',
    method('gmail.users.drafts.send', MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.SendDraft', async (upload, c) =>
      (await compose()).sendDraft(c.mailbox, draftIdOf(upload.metadata), file(upload), stringOf(draftMeta(upload)['threadId']), upload.signal),
    ),
    defaultProtocol,
  );
  engine.route(
    app,
    'PUT',
    '/users/:userId/drafts/:id',
    method('gmail.users.drafts.update', MAIL_SCOPES.draftWrite, 'caribou.api.proto.MailboxService.UpdateDraft', async (upload, c) =>
      (await compose()).updateDraft(c.mailbox, c.draftId!, file(upload), stringOf(draftMeta(upload)['threadId']), upload.signal),
    ),
    defaultProtocol,
  );
}

/** rawFrom decodes a Message's `raw` (base64url or base64, padded or not), or refuses a write without it. */
function rawFrom(message: Record<string, unknown>): RawSource {
  const raw = message['raw'];
  if (raw === undefined || raw === null || raw === '') throw rawRequired();
  if (typeof raw !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw) || unpaddedLength(raw) % 4 === 1) {
    const shown = typeof raw === 'string' ? raw : JSON.stringify(raw);
    throw invalidArgument(`Invalid value for ByteString: ${shown.length > 100 ? `${shown.slice(0, 100)}…` : shown}`);
  }
  // Node's base64 decoder reads both alphabets, padded or not.
  return { kind: 'bytes', bytes: Buffer.from(raw, 'base64') };
}

/** unpaddedLength is the length of a base64 text without its trailing `=` (counted, not copied: `raw` is the whole message). */
function unpaddedLength(text: string): number {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  return end;
}

function draftMessage(draft: Record<string, unknown>): Record<string, unknown> {
  const message = draft['message'];
  if (typeof message !== 'object' || message === null) throw rawRequired();
  return message as Record<string, unknown>;
}

function draftIdOf(draft: Record<string, unknown>): string {
  const id = draft['id'];
  if (typeof id !== 'string' || id === '') throw invalidArgument('Invalid draft ID');
  return id;
}

function stringOf(value: unknown): string | undefined {
  if (Array.isArray(value)) return stringOf(value[0]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

// Query parameters only: the query parser yields strings or lists of strings (body lists go through stringListField).
function listOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
}

function maxResults(value: unknown, fallback: number): number {
  const text = stringOf(value);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw invalidArgument(`Invalid value for maxResults: ${text}`);
  return Math.min(Math.max(Number(text), 1), 500);
}

function listOptions(q: Query): ListOptions {
  const text = stringOf(q['q']);
  const token = stringOf(q['pageToken']);
  return {
    ...(text === undefined ? {} : { q: text }),
    labelIds: listOf(q['labelIds']),
    maxResults: maxResults(q['maxResults'], 100),
    ...(token === undefined ? {} : { pageToken: token }),
    includeSpamTrash: stringOf(q['includeSpamTrash']) === 'true',
  };
}
