import type { Clock } from '../../lib/clock.ts';
import type { Store } from '../../store/store.ts';
import { invalidArgument, MailError, notFound } from './errors.ts';
import type { MessageFiles } from './message-files.ts';
import { relabel, removeMessage } from './mailbox-writes.ts';
import {
  historyKey,
  key,
  KINDS,
  SYSTEM_LABEL_IDS,
  type DraftRecord,
  type HistoryRecord,
  type LabelRecord,
  type MailboxRecord,
  type MessageRecord,
} from './model.ts';
import { parseQuery, type QueryContext } from './query.ts';

/** partBodies loads the MIME splitter with the first read of a body part, not at start-up. */
const partBodies = () => import('./mime/part-body.ts');
import { findPart, inlinePartIds, partIdOfAttachment, renderMessage, type MessageFormat } from './render.ts';

/** ListOptions are messages.list / threads.list / drafts.list parameters. */
export interface ListOptions {
  readonly q?: string;
  readonly labelIds: readonly string[];
  readonly maxResults: number;
  readonly pageToken?: string;
  readonly includeSpamTrash: boolean;
}

/** Page is one page of a list, with the next page's token. */
export interface Page<T> {
  readonly items: T[];
  readonly nextPageToken?: string;
  readonly total: number;
}

/**
 * MailboxService is the reading and filing side of the mail API over one store: messages get,
 * list, modify, trash, delete and attachments; threads; drafts get/list; labels; profile;
 * history. Every call names its mailbox; state is keyed by it.
 */
export class MailboxService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly files: MessageFiles,
  ) {}

  /** message finds a message or throws 404. */
  async message(mailbox: string, id: string): Promise<MessageRecord> {
    const record = await this.store.get<MessageRecord>(KINDS.messages, key(mailbox, id));
    if (record === undefined) throw notFound();
    return record.value;
  }

  /** render renders a message in a format, reading the raw file for `raw`. */
  async render(message: MessageRecord, format: MessageFormat, metadataHeaders: readonly string[]): Promise<Record<string, unknown>> {
    const raw = format === 'raw' ? await this.files.bytes(message.file) : undefined;
    const inline = format === 'full' ? inlinePartIds(message.payload) : new Set<string>();
    const bodies = inline.size === 0 ? new Map<string, Buffer>() : await (await partBodies()).readPartBodies(await this.files.read(message.file), inline);
    return renderMessage(message, format, metadataHeaders, raw, bodies);
  }

  /** list returns a mailbox's messages newest first, filtered by labels, `q` and spam/trash, one page at a time. */
  async list(mailbox: string, options: ListOptions): Promise<Page<MessageRecord>> {
    const records = await this.store.list<MessageRecord>(KINDS.messages, { prefix: `${mailbox}/` });
    const candidates = records
      .map((record) => record.value)
      .filter((message) => options.labelIds.every((label) => message.labelIds.includes(label)))
      .filter(
        (message) =>
          options.includeSpamTrash ||
          options.labelIds.some((label) => label === 'SPAM' || label === 'TRASH') ||
          !message.labelIds.some((label) => label === 'SPAM' || label === 'TRASH'),
      );
    const matches = await this.#matcher(mailbox, options.q, candidates);
    const matching = candidates.filter(matches).sort((a, b) => b.internalDate - a.internalDate || (a.id < b.id ? 1 : -1));
    return paginate(matching, options);
  }

  /** modify adds and removes labels (they must exist). */
  async modify(mailbox: string, id: string, add: readonly string[], remove: readonly string[]): Promise<MessageRecord> {
    await this.#checkLabels(mailbox, [...add, ...remove]);
    return this.store.transact(async (tx) => {
      const current = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, id));
      if (current === undefined) throw notFound();
      return relabel(tx, mailbox, current.value, add, remove);
    });
  }

  /** delete removes a message for good (and its file). */
  async delete(mailbox: string, id: string): Promise<void> {
    const file = await this.store.transact(async (tx) => {
      const current = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, id));
      if (current === undefined) throw notFound();
      return removeMessage(tx, mailbox, current.value);
    });
    if (file !== undefined) await this.files.remove(file);
  }

  /** attachment returns a part's decoded body: `{attachmentId, size, data}`. */
  async attachment(mailbox: string, messageId: string, attachmentId: string): Promise<Record<string, unknown>> {
    const message = await this.message(mailbox, messageId);
    const partId = partIdOfAttachment(messageId, attachmentId);
    const part = findPart(message.payload, partId);
    if (part === undefined || part.parts !== undefined) throw notFound();
    const body = (await (await partBodies()).readPartBodies(await this.files.read(message.file), new Set([partId]))).get(partId);
    if (body === undefined) throw notFound();
    return { attachmentId, size: body.length, data: body.toString('base64url') };
  }

  /** draft finds a draft and its message. */
  async draft(mailbox: string, id: string): Promise<{ draft: DraftRecord; message: MessageRecord }> {
    const draft = await this.store.get<DraftRecord>(KINDS.drafts, key(mailbox, id));
    if (draft === undefined) throw notFound();
    return { draft: draft.value, message: await this.message(mailbox, draft.value.messageId) };
  }

  /** drafts lists drafts newest first, optionally filtered by `q` on their messages. */
  async drafts(mailbox: string, options: ListOptions): Promise<Page<{ draft: DraftRecord; message: MessageRecord }>> {
    const drafts = await this.store.list<DraftRecord>(KINDS.drafts, { prefix: `${mailbox}/` });
    const all: { draft: DraftRecord; message: MessageRecord }[] = [];
    for (const draft of drafts) {
      const message = await this.store.get<MessageRecord>(KINDS.messages, key(mailbox, draft.value.messageId));
      if (message !== undefined) all.push({ draft: draft.value, message: message.value });
    }
    const matches = await this.#matcher(
      mailbox,
      options.q,
      all.map((pair) => pair.message),
    );
    const pairs = all.filter((pair) => matches(pair.message));
    pairs.sort((a, b) => b.message.internalDate - a.message.internalDate);
    return paginate(pairs, options);
  }

  /** thread lists a thread's messages oldest first, or throws 404. */
  async thread(mailbox: string, threadId: string): Promise<MessageRecord[]> {
    const records = await this.store.list<MessageRecord>(KINDS.messages, { prefix: `${mailbox}/` });
    const messages = records.map((record) => record.value).filter((message) => message.threadId === threadId);
    if (messages.length === 0) throw notFound();
    return messages.sort((a, b) => a.internalDate - b.internalDate || (a.id < b.id ? -1 : 1));
  }

  /** threads lists threads whose newest matching message passes the filters, newest first. */
  async threads(mailbox: string, options: ListOptions): Promise<Page<{ id: string; snippet: string; historyId: number }>> {
    const { pageToken: _ignored, ...filters } = options;
    const all = await this.list(mailbox, { ...filters, maxResults: Number.MAX_SAFE_INTEGER });
    const seen = new Map<string, { id: string; snippet: string; historyId: number }>();
    for (const message of all.items) {
      const known = seen.get(message.threadId);
      if (known === undefined) seen.set(message.threadId, { id: message.threadId, snippet: message.snippet, historyId: message.historyId });
      else known.historyId = Math.max(known.historyId, message.historyId);
    }
    return paginate([...seen.values()], options);
  }

  /** profile is users.getProfile. */
  async profile(mailbox: string): Promise<Record<string, unknown>> {
    const records = await this.store.list<MessageRecord>(KINDS.messages, { prefix: `${mailbox}/` });
    const counters = await this.store.get<MailboxRecord>(KINDS.mailboxes, mailbox);
    return {
      emailAddress: mailbox,
      messagesTotal: records.length,
      threadsTotal: new Set(records.map((record) => record.value.threadId)).size,
      historyId: String(counters?.value.historyId ?? 1),
    };
  }

  /** history lists changes after `startHistoryId`, optionally of some types or one label. */
  async history(
    mailbox: string,
    startHistoryId: number,
    types: readonly string[],
    labelId: string | undefined,
    maxResults: number,
    pageToken: string | undefined,
  ): Promise<Record<string, unknown>> {
    const records = await this.store.list<HistoryRecord>(KINDS.history, { prefix: `${mailbox}/`, after: historyKey(mailbox, startHistoryId) });
    // historyTypes values are singular (messageAdded); the History fields plural (messagesAdded).
    const wanted = new Set(types.map((type) => HISTORY_FIELDS[type] ?? type));
    const entries = records
      .map((record) => record.value)
      .map((entry) => filterHistory(entry, wanted, labelId))
      .filter((entry): entry is HistoryRecord => entry !== undefined);
    const counters = await this.store.get<MailboxRecord>(KINDS.mailboxes, mailbox);
    const page = paginate(entries, { maxResults, ...(pageToken === undefined ? {} : { pageToken }) });
    return {
      ...(page.items.length === 0 ? {} : { history: page.items.map((entry) => ({ ...entry, id: String(entry.id) })) }),
      ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }),
      historyId: String(counters?.value.historyId ?? 1),
    };
  }

  /** labels lists system and user labels. */
  async labels(mailbox: string): Promise<LabelRecord[]> {
    return (await this.store.list<LabelRecord>(KINDS.labels, { prefix: `${mailbox}/` })).map((record) => record.value);
  }

  /** labelCounts counts a label's messages and threads (labels.get). */
  async labelCounts(mailbox: string, labelId: string): Promise<Record<string, number>> {
    const records = (await this.store.list<MessageRecord>(KINDS.messages, { prefix: `${mailbox}/` }))
      .map((record) => record.value)
      .filter((message) => message.labelIds.includes(labelId));
    const unread = records.filter((message) => message.labelIds.includes('UNREAD'));
    return {
      messagesTotal: records.length,
      messagesUnread: unread.length,
      threadsTotal: new Set(records.map((message) => message.threadId)).size,
      threadsUnread: new Set(unread.map((message) => message.threadId)).size,
    };
  }

  /** createLabel adds a user label (`Label_<n>`); names must be new and not a system label's. */
  async createLabel(mailbox: string, body: Record<string, unknown>): Promise<LabelRecord> {
    const name = typeof body['name'] === 'string' ? body['name'].trim() : '';
    if (name === '' || SYSTEM_LABEL_IDS.has(name.toUpperCase())) throw invalidArgument('Invalid label name');
    return this.store.transact(async (tx) => {
      const existing = await tx.list<LabelRecord>(KINDS.labels, { prefix: `${mailbox}/` });
      if (existing.some((record) => record.value.name.toLowerCase() === name.toLowerCase()))
        throw new MailError(409, 'duplicate', 'ALREADY_EXISTS', 'Label name exists or conflicts');
      const counters = await tx.get<MailboxRecord>(KINDS.mailboxes, mailbox);
      const next = counters?.value.nextLabel ?? 1;
      await tx.put(KINDS.mailboxes, mailbox, { historyId: counters?.value.historyId ?? 1, nextLabel: next + 1 } satisfies MailboxRecord);
      const label: LabelRecord = {
        id: `Label_${next}`,
        name,
        ...(typeof body['messageListVisibility'] === 'string' ? { messageListVisibility: body['messageListVisibility'] } : {}),
        ...(typeof body['labelListVisibility'] === 'string' ? { labelListVisibility: body['labelListVisibility'] } : {}),
      };
      await tx.put(KINDS.labels, key(mailbox, label.id), label, { expectRevision: 0 });
      return label;
    });
  }

  /** deleteLabel removes a user label and takes it off every message; system labels cannot be deleted. */
  async deleteLabel(mailbox: string, id: string): Promise<void> {
    if (SYSTEM_LABEL_IDS.has(id)) throw invalidArgument('Invalid delete request');
    await this.store.transact(async (tx) => {
      const label = await tx.delete(KINDS.labels, key(mailbox, id));
      if (label === undefined) throw notFound();
      for (const record of await tx.list<MessageRecord>(KINDS.messages, { prefix: `${mailbox}/` })) {
        if (record.value.labelIds.includes(id)) await relabel(tx, mailbox, record.value, [], [id]);
      }
    });
  }

  /** #matcher prepares `q` for `candidates`: user label names, and their search texts when `q` has free text. */
  async #matcher(mailbox: string, q: string | undefined, candidates: readonly MessageRecord[]): Promise<(message: MessageRecord) => boolean> {
    if (q === undefined || q.trim() === '') return () => true;
    const query = parseQuery(q, this.clock.now());
    const labelNames = new Map((await this.labels(mailbox)).map((label) => [label.id, label.name]));
    const texts = new Map<string, string>();
    if (query.needsText) {
      for (const message of candidates) {
        if (!texts.has(message.file)) texts.set(message.file, await this.files.searchText(message.file));
      }
    }
    const context: QueryContext = { labelNames, textOf: (message) => texts.get(message.file) ?? '' };
    return (message) => query.matches(message, context);
  }

  async #checkLabels(mailbox: string, ids: readonly string[]): Promise<void> {
    const user = new Set((await this.labels(mailbox)).map((label) => label.id));
    for (const id of ids) if (!SYSTEM_LABEL_IDS.has(id) && !user.has(id)) throw invalidArgument(`Invalid label: ${id}`);
  }
}

const HISTORY_FIELDS: Readonly<Record<string, string>> = {
  messageAdded: 'messagesAdded',
  messageDeleted: 'messagesDeleted',
  labelAdded: 'labelsAdded',
  labelRemoved: 'labelsRemoved',
};

function filterHistory(entry: HistoryRecord, wanted: ReadonlySet<string>, labelId: string | undefined): HistoryRecord | undefined {
  const keep = (name: string): boolean => wanted.size === 0 || wanted.has(name);
  const byLabel = <T extends { message: { labelIds: readonly string[] }; labelIds?: readonly string[] }>(list: readonly T[] | undefined): T[] | undefined => {
    if (list === undefined) return undefined;
    const kept = labelId === undefined ? [...list] : list.filter((item) => (item.labelIds ?? item.message.labelIds).includes(labelId));
    return kept.length === 0 ? undefined : kept;
  };
  const messagesAdded = keep('messagesAdded') ? byLabel(entry.messagesAdded) : undefined;
  const messagesDeleted = keep('messagesDeleted') ? byLabel(entry.messagesDeleted) : undefined;
  const labelsAdded = keep('labelsAdded') ? byLabel(entry.labelsAdded) : undefined;
  const labelsRemoved = keep('labelsRemoved') ? byLabel(entry.labelsRemoved) : undefined;
  if (messagesAdded === undefined && messagesDeleted === undefined && labelsAdded === undefined && labelsRemoved === undefined) return undefined;
  return {
    id: entry.id,
    messages: entry.messages,
    ...(messagesAdded === undefined ? {} : { messagesAdded }),
    ...(messagesDeleted === undefined ? {} : { messagesDeleted }),
    ...(labelsAdded === undefined ? {} : { labelsAdded }),
    ...(labelsRemoved === undefined ? {} : { labelsRemoved }),
  };
}

/** paginate cuts a list into pages; the token is the offset of the next page. */
function paginate<T>(items: readonly T[], options: { readonly maxResults: number; readonly pageToken?: string }): Page<T> {
  const offset = options.pageToken === undefined ? 0 : Number.parseInt(Buffer.from(options.pageToken, 'base64url').toString('utf8'), 10);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidArgument('Invalid pageToken');
  const page = items.slice(offset, offset + options.maxResults);
  const next = offset + options.maxResults;
  return { items: page, total: items.length, ...(next < items.length ? { nextPageToken: Buffer.from(String(next)).toString('base64url') } : {}) };
}
