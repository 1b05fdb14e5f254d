import type { Clock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import type { Store, Transaction } from '../../store/store.ts';
import { notFound } from './errors.ts';
import type { MessageFiles, RawSource, StoredRaw } from './message-files.ts';
import { addMessages, newFile, removeMessage } from './mailbox-writes.ts';
import { key, KINDS, newDraftId, newMessageId, type DraftRecord, type MessageRecord } from './model.ts';
import { composeOutgoing, withoutBcc, type ComposeMode, type OutgoingMessage } from './outgoing.ts';
import { MAX_RECIPIENTS_PER_MESSAGE } from './recipient-limit.ts';
import type { Relay } from './relay.ts';
import { threadFor } from './threading.ts';

/**
 * SenderThread says how the sender's copy finds its thread: through the thread the API request
 * names (`messages.send`'s `threadId`, which Gmail requires for it) or, for a submission that
 * cannot name one (SMTP), by its In-Reply-To / References and subject alone.
 */
type SenderThread = { readonly requested: string | undefined } | 'by-headers';

/** MinimalMessage is what send answers: `{id, threadId, labelIds}`. */
export interface MinimalMessage {
  readonly id: string;
  readonly threadId: string;
  readonly labelIds: readonly string[];
}

/** DraftAnswer is what draft writes answer: `{id, message: {id, threadId, labelIds}}`. */
export interface DraftAnswer {
  readonly id: string;
  readonly message: MinimalMessage;
}

const minimal = (message: MessageRecord): MinimalMessage => ({ id: message.id, threadId: message.threadId, labelIds: message.labelIds });

const DRAFT: ComposeMode = { kind: 'draft' };

/**
 * ComposeService is the mail API's writing side: messages.send and the drafts lifecycle. A sent
 * message lands in the sender's mailbox (SENT, Bcc visible) and in every recipient's (INBOX,
 * UNREAD, no Bcc), each copy with its own ids, in one transaction; files written for a write
 * that fails are removed again.
 */
export class ComposeService {
  readonly #send: Extract<ComposeMode, { kind: 'send' }>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    private readonly files: MessageFiles,
    private readonly relay: Relay | undefined,
    /** The most recipients a sent message may have (Gmail API: 100). */
    maxRecipients: number = MAX_RECIPIENTS_PER_MESSAGE,
  ) {
    this.#send = { kind: 'send', maxRecipients };
  }

  /** send delivers a raw message from `mailbox` to its To, Cc and Bcc. */
  async send(mailbox: string, source: RawSource, threadId: string | undefined, signal?: AbortSignal): Promise<MinimalMessage> {
    const outgoing = await composeOutgoing(source, mailbox, this.#send, this.files, this.clock, this.ids);
    return this.#deliver(mailbox, outgoing, { requested: threadId }, undefined, signal);
  }

  /**
   * submit delivers a message submitted over SMTP from `mailbox` to its envelope recipients
   * (RCPT TO), through the same delivery as send: the sender's copy, one per recipient, one
   * transaction.
   */
  async submit(mailbox: string, source: RawSource, envelope: readonly string[], signal?: AbortSignal): Promise<MinimalMessage> {
    const outgoing = await composeOutgoing(source, mailbox, { ...this.#send, envelope }, this.files, this.clock, this.ids);
    // Over SMTP there is no threadId to name: the sender's copy is threaded by its headers, as a recipient's is.
    return this.#deliver(mailbox, outgoing, 'by-headers', undefined, signal);
  }

  /** createDraft stores a raw message as a draft (label DRAFT); no recipient is needed yet. */
  async createDraft(mailbox: string, source: RawSource, threadId: string | undefined, signal?: AbortSignal): Promise<DraftAnswer> {
    const outgoing = await composeOutgoing(source, mailbox, DRAFT, this.files, this.clock, this.ids);
    const draftId = newDraftId(this.ids);
    return this.#guard(outgoing, signal, async () =>
      this.store.transact(async (tx) => {
        const message = await this.#storeDraftMessage(tx, mailbox, outgoing, threadId);
        await tx.put(KINDS.drafts, key(mailbox, draftId), { id: draftId, messageId: message.id } satisfies DraftRecord, { expectRevision: 0 });
        return { id: draftId, message: minimal(message) };
      }),
    );
  }

  /** updateDraft replaces a draft's message (it gets a new message id, as in Gmail). */
  async updateDraft(mailbox: string, draftId: string, source: RawSource, threadId: string | undefined, signal?: AbortSignal): Promise<DraftAnswer> {
    await this.#draft(mailbox, draftId);
    const outgoing = await composeOutgoing(source, mailbox, DRAFT, this.files, this.clock, this.ids);
    const replaced: string[] = [];
    const answer = await this.#guard(outgoing, signal, async () =>
      this.store.transact(async (tx) => {
        const draft = await tx.get<DraftRecord>(KINDS.drafts, key(mailbox, draftId));
        if (draft === undefined) throw notFound();
        const old = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, draft.value.messageId));
        const unused = old === undefined ? undefined : await removeMessage(tx, mailbox, old.value);
        if (unused !== undefined) replaced.push(unused);
        const message = await this.#storeDraftMessage(tx, mailbox, outgoing, threadId ?? old?.value.threadId);
        await tx.put(KINDS.drafts, key(mailbox, draftId), { id: draftId, messageId: message.id } satisfies DraftRecord);
        return { id: draftId, message: minimal(message) };
      }),
    );
    await Promise.all(replaced.map((file) => this.files.remove(file)));
    return answer;
  }

  /** sendDraft sends a draft (after replacing its message when `source` is given) and deletes it. */
  async sendDraft(
    mailbox: string,
    draftId: string,
    source: RawSource | undefined,
    threadId: string | undefined,
    signal?: AbortSignal,
  ): Promise<MinimalMessage> {
    const { draft, message } = await this.#draft(mailbox, draftId);
    const raw: RawSource = source ?? (await this.files.source(message.file));
    const outgoing = await composeOutgoing(raw, mailbox, this.#send, this.files, this.clock, this.ids);
    const unused: string[] = [];
    const sent = await this.#deliver(
      mailbox,
      outgoing,
      { requested: threadId ?? message.threadId },
      async (tx) => {
        const current = await tx.get<DraftRecord>(KINDS.drafts, key(mailbox, draftId));
        if (current === undefined) throw notFound();
        await tx.delete(KINDS.drafts, key(mailbox, draftId));
        const draftMessage = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, draft.messageId));
        const file = draftMessage === undefined ? undefined : await removeMessage(tx, mailbox, draftMessage.value);
        if (file !== undefined) unused.push(file);
      },
      signal,
    );
    await Promise.all(unused.map((file) => this.files.remove(file)));
    return sent;
  }

  /** deleteDraft deletes a draft and its message for good. */
  async deleteDraft(mailbox: string, draftId: string): Promise<void> {
    const file = await this.store.transact(async (tx) => {
      const draft = await tx.get<DraftRecord>(KINDS.drafts, key(mailbox, draftId));
      if (draft === undefined) throw notFound();
      await tx.delete(KINDS.drafts, key(mailbox, draftId));
      const message = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, draft.value.messageId));
      if (message === undefined) return undefined;
      return removeMessage(tx, mailbox, message.value);
    });
    if (file !== undefined) await this.files.remove(file);
  }

  async #draft(mailbox: string, draftId: string): Promise<{ draft: DraftRecord; message: MessageRecord }> {
    const draft = await this.store.get<DraftRecord>(KINDS.drafts, key(mailbox, draftId));
    if (draft === undefined) throw notFound();
    const message = await this.store.get<MessageRecord>(KINDS.messages, key(mailbox, draft.value.messageId));
    if (message === undefined) throw notFound();
    return { draft: draft.value, message: message.value };
  }

  async #storeDraftMessage(tx: Transaction, mailbox: string, outgoing: OutgoingMessage, threadId: string | undefined): Promise<MessageRecord> {
    const id = newMessageId(this.clock.now(), this.ids);
    const thread = await threadFor(tx, mailbox, id, outgoing.references, outgoing.subject, threadId, true);
    const [message] = await addMessages(
      tx,
      [{ mailbox, message: this.#record(id, thread, ['DRAFT'], outgoing, outgoing.senderFile, false) }],
      [newFile(outgoing.senderFile, 1, outgoing.text)],
    );
    return message!;
  }

  /**
   * #deliver stores the sender's copy and every recipient's in one transaction. Everything that
   * does not depend on what the mailboxes hold now — ids, the copies' records (one shared body:
   * the payload without Bcc, the search fields) — is made before it, so the transaction reads
   * threads only when the message answers another, then every mailbox's counter at once, and
   * writes every copy's rows in one batch.
   */
  async #deliver(
    mailbox: string,
    outgoing: OutgoingMessage,
    senderThread: SenderThread,
    alsoInTransaction: ((tx: Transaction) => Promise<void>) | undefined,
    signal?: AbortSignal,
  ): Promise<MinimalMessage> {
    const everyone = outgoing.delivery;
    const recipients = everyone.filter((address) => address !== mailbox);
    const toSelf = recipients.length !== everyone.length;
    const separate = outgoing.deliveryFile.name !== outgoing.senderFile.name;
    const now = this.clock.now();
    const senderId = newMessageId(now, this.ids);
    const senderCopy = this.#record(senderId, senderId, toSelf ? ['SENT', 'INBOX', 'UNREAD'] : ['SENT'], outgoing, outgoing.senderFile, false, now);
    const delivered = this.#record('', '', ['INBOX', 'UNREAD'], outgoing, outgoing.deliveryFile, true, now);
    const copies = recipients.map((recipient) => ({ recipient, id: newMessageId(now, this.ids) }));
    const answers = outgoing.references.length > 0;
    const sent = await this.#guard(outgoing, signal, async () =>
      this.store.transact(async (tx) => {
        await alsoInTransaction?.(tx);
        const thread =
          senderThread === 'by-headers'
            ? await threadFor(tx, mailbox, senderId, outgoing.references, outgoing.subject, undefined, false)
            : await threadFor(tx, mailbox, senderId, outgoing.references, outgoing.subject, senderThread.requested, true);
        const added = [{ mailbox, message: { ...senderCopy, threadId: thread } }];
        for (const { recipient, id } of copies) {
          // A message that answers nothing starts its own thread in every mailbox: no read needed.
          const copyThread = answers ? await threadFor(tx, recipient, id, outgoing.references, outgoing.subject, undefined, false) : id;
          added.push({ mailbox: recipient, message: { ...delivered, id, threadId: copyThread } });
        }
        // One raw serves every copy that has the same bytes; it is unlinked with its last message.
        const raws = [newFile(outgoing.senderFile, separate ? 1 : 1 + recipients.length, outgoing.text)];
        if (separate && recipients.length > 0) raws.push(newFile(outgoing.deliveryFile, recipients.length, outgoing.text));
        const [message] = await addMessages(tx, added, raws);
        return message!;
      }),
    );
    if (separate && recipients.length === 0) await this.files.remove(outgoing.deliveryFile.name);
    const deliveredFile = outgoing.deliveryFile;
    this.relay?.forward(mailbox, sent.id, deliveredFile.inline ?? (() => this.files.stream({ kind: 'kept', name: deliveredFile.name })), mailbox, everyone);
    return minimal(sent);
  }

  #record(
    id: string,
    threadId: string,
    labelIds: string[],
    outgoing: OutgoingMessage,
    file: StoredRaw,
    delivered: boolean,
    now = this.clock.now(),
  ): Omit<MessageRecord, 'historyId'> {
    return {
      id,
      threadId,
      labelIds,
      snippet: outgoing.snippet,
      internalDate: now,
      sizeEstimate: file.size,
      payload: delivered ? withoutBcc(outgoing.parsed.payload) : outgoing.parsed.payload,
      file: file.name,
      search: delivered ? { ...outgoing.search, bcc: [] } : outgoing.search,
    };
  }

  /**
   * #guard removes every file the write made when the write fails, so nothing half-stored stays;
   * an upload already answered without us (`signal` aborted: deadline, shutdown) writes nothing.
   */
  async #guard<R>(outgoing: OutgoingMessage, signal: AbortSignal | undefined, write: () => Promise<R>): Promise<R> {
    try {
      signal?.throwIfAborted();
      return await write();
    } catch (error) {
      const names = new Set([outgoing.senderFile.name, outgoing.deliveryFile.name]);
      await Promise.all([...names].map((name) => this.files.remove(name)));
      throw error;
    }
  }
}
