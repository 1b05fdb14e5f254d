import type { PutRequest, Transaction } from '../../store/store.ts';
import type { StoredRaw } from './message-files.ts';
import { historyKey, key, KINDS, type FileRefs, type HistoryRecord, type MailboxRecord, type MessageRecord } from './model.ts';

/** HistoryChange is a history entry without its id (the mailbox assigns it). */
export type HistoryChange = Omit<HistoryRecord, 'id'>;

/** nextHistoryId advances a mailbox's history counter and returns the new id. */
export async function nextHistoryId(tx: Transaction, mailbox: string): Promise<number> {
  const current = await tx.get<MailboxRecord>(KINDS.mailboxes, mailbox);
  const value: MailboxRecord = current === undefined ? { historyId: 1, nextLabel: 1 } : { ...current.value, historyId: current.value.historyId + 1 };
  await tx.put(KINDS.mailboxes, mailbox, value);
  return value.historyId;
}

/** recordHistory writes one history entry under a fresh history id and returns the id. */
export async function recordHistory(tx: Transaction, mailbox: string, change: HistoryChange): Promise<number> {
  const id = await nextHistoryId(tx, mailbox);
  await tx.put(KINDS.history, historyKey(mailbox, id), { id, ...change } satisfies HistoryRecord);
  return id;
}

/** refOf is the `{id, threadId, labelIds}` a history entry names. */
export function refOf(message: MessageRecord): { id: string; threadId: string; labelIds: readonly string[] } {
  return { id: message.id, threadId: message.threadId, labelIds: message.labelIds };
}

/** NewMessage is a message to add to a mailbox, before it has a history id. */
export interface NewMessage {
  readonly mailbox: string;
  readonly message: Omit<MessageRecord, 'historyId'>;
}

/**
 * addMessages adds one message to each of several distinct mailboxes — each message with its
 * Message-ID index entry, its mailbox's history counter advanced and messagesAdded recorded (a
 * message carries the id of the change that made it) — in one read of the counters and one
 * batch of writes (a send to a hundred recipients is two round trips to a networked store, not
 * five hundred). `first` are writes that go into the same batch ahead of the messages' (the new
 * raws they use, newFile).
 */
export async function addMessages(tx: Transaction, added: readonly NewMessage[], first: readonly PutRequest[] = []): Promise<MessageRecord[]> {
  const mailboxes = added.map((entry) => entry.mailbox);
  if (new Set(mailboxes).size !== mailboxes.length) throw new Error('addMessages needs distinct mailboxes: each reads its counter once');
  const counters = await tx.getMany<MailboxRecord>(KINDS.mailboxes, mailboxes);
  const writes: PutRequest[] = [...first];
  const stored = added.map(({ mailbox, message }, i) => {
    const current = counters[i]?.value;
    const counter: MailboxRecord = current === undefined ? { historyId: 1, nextLabel: 1 } : { ...current, historyId: current.historyId + 1 };
    const historyId = counter.historyId;
    const record: MessageRecord = { ...message, historyId };
    const change: HistoryChange = { messages: [{ id: message.id, threadId: message.threadId }], messagesAdded: [{ message: refOf(record) }] };
    writes.push(
      { kind: KINDS.mailboxes, key: mailbox, value: counter },
      { kind: KINDS.messages, key: key(mailbox, message.id), value: record, options: { expectRevision: 0 } },
    );
    if (message.search.rfc822msgid !== '')
      writes.push({ kind: KINDS.messageIds, key: key(mailbox, message.search.rfc822msgid), value: { id: message.id, threadId: message.threadId } });
    writes.push({ kind: KINDS.history, key: historyKey(mailbox, historyId), value: { id: historyId, ...change } satisfies HistoryRecord });
    return record;
  });
  await tx.putMany(writes);
  return stored;
}

/**
 * newFile is the write that records a raw just kept (its name is new: no message uses it yet) as
 * used by `refs` messages: an inline raw with its bytes (its search text is read from them when a
 * search needs it, MessageFiles.searchText), a file with its search text (reading the file back
 * for a search would cost more). The write expects no record, so a name already in use fails the
 * transaction rather than losing a count; it needs no read, so it joins the batch of the
 * messages that use the raw (addMessages `first`).
 */
export function newFile(raw: StoredRaw, refs: number, text: string): PutRequest {
  const value: FileRefs = raw.inline === undefined ? { refs, text } : { refs, data: raw.inline.toString('base64') };
  return { kind: KINDS.files, key: raw.name, value, options: { expectRevision: 0 } };
}

/** releaseFile drops one message's use of a raw file; true when it was the last (the caller unlinks it after commit). */
export async function releaseFile(tx: Transaction, name: string): Promise<boolean> {
  const current = await tx.get<FileRefs>(KINDS.files, name);
  if (current === undefined || current.value.refs <= 1) {
    await tx.delete(KINDS.files, name);
    return true;
  }
  await tx.put(KINDS.files, name, { ...current.value, refs: current.value.refs - 1 } satisfies FileRefs);
  return false;
}

/**
 * removeMessage deletes a message for good and records messagesDeleted; it returns the raw
 * file's name when no message uses it any more (unlink it once the transaction committed).
 */
export async function removeMessage(tx: Transaction, mailbox: string, message: MessageRecord): Promise<string | undefined> {
  await tx.delete(KINDS.messages, key(mailbox, message.id));
  if (message.search.rfc822msgid !== '') {
    const indexed = await tx.get<{ id: string }>(KINDS.messageIds, key(mailbox, message.search.rfc822msgid));
    if (indexed?.value.id === message.id) await tx.delete(KINDS.messageIds, key(mailbox, message.search.rfc822msgid));
  }
  await recordHistory(tx, mailbox, { messages: [{ id: message.id, threadId: message.threadId }], messagesDeleted: [{ message: refOf(message) }] });
  return (await releaseFile(tx, message.file)) ? message.file : undefined;
}

/** relabel applies label additions and removals, recording labelsAdded / labelsRemoved; returns the updated message. */
export async function relabel(
  tx: Transaction,
  mailbox: string,
  message: MessageRecord,
  add: readonly string[],
  remove: readonly string[],
): Promise<MessageRecord> {
  const labels = new Set(message.labelIds);
  const added = add.filter((label) => !labels.has(label));
  for (const label of added) labels.add(label);
  const removed = remove.filter((label) => labels.has(label) && !added.includes(label));
  for (const label of removed) labels.delete(label);
  if (added.length === 0 && removed.length === 0) return message;
  const historyId = await nextHistoryIdPeek(tx, mailbox);
  const updated: MessageRecord = { ...message, labelIds: [...labels], historyId };
  await tx.put(KINDS.messages, key(mailbox, message.id), updated);
  const ref = refOf(updated);
  await recordHistory(tx, mailbox, {
    messages: [{ id: message.id, threadId: message.threadId }],
    ...(added.length > 0 ? { labelsAdded: [{ message: ref, labelIds: added }] } : {}),
    ...(removed.length > 0 ? { labelsRemoved: [{ message: ref, labelIds: removed }] } : {}),
  });
  return updated;
}

/** nextHistoryIdPeek is the id the next recordHistory will assign (a message carries the id of the change that made it). */
async function nextHistoryIdPeek(tx: Transaction, mailbox: string): Promise<number> {
  const current = await tx.get<MailboxRecord>(KINDS.mailboxes, mailbox);
  return (current?.value.historyId ?? 0) + 1;
}
