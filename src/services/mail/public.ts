/**
 * The mail family's face: what the layers above it (the console, bench, cli) may use — the
 * family's own reading code (the same messages, `q` syntax and paging as the API) and the read
 * models it answers with — so the store kinds, keys and writes inside the family can change
 * without them (test/architecture/ refuses any other import from outside the family).
 */
import type { Clock } from '../../lib/clock.ts';
import type { Store } from '../../store/store.ts';
import { MailboxService } from './mailbox-service.ts';
import { MessageFiles } from './message-files.ts';
import { KINDS, type MessageRecord } from './model.ts';

export { ALL_MAILBOXES_PERMISSION, MAIL_SCOPES } from './access.ts';
export { MailError } from './errors.ts';
export type { ListOptions as MailListOptions, Page as MailPage } from './mailbox-service.ts';
export type { StoredPart as MailMessagePart } from './mime/parse-message.ts';
export { attachmentIdOf } from './render.ts';

/** MailMessage is one message of one mailbox as the family reads it (labels, headers and parts, search fields). */
export type MailMessage = MessageRecord;

/** MailboxReader reads one store's mailboxes: messages, pages of them by `q`, threads, attachments, a message rendered in an API format. */
export type MailboxReader = Pick<MailboxService, 'message' | 'list' | 'thread' | 'attachment' | 'render'>;

/** openMailboxReader is the family's reading code over `store`. */
export function openMailboxReader(store: Store, clock: Clock): MailboxReader {
  return new MailboxService(store, clock, new MessageFiles(store));
}

/** MailboxCount is a mailbox that holds messages, with how many and how many unread in the inbox. */
export interface MailboxCount {
  readonly address: string;
  readonly total: number;
  readonly unread: number;
}

/**
 * mailboxCounts counts the messages of one mailbox (listed even when empty), or of every mailbox
 * that holds any (`'every'`), in address order.
 */
export async function mailboxCounts(store: Store, mailboxes: { readonly only: string } | 'every'): Promise<MailboxCount[]> {
  const only = mailboxes === 'every' ? undefined : mailboxes.only;
  const records = await store.list<MessageRecord>(KINDS.messages, only === undefined ? {} : { prefix: `${only}/` });
  const counts = new Map<string, { total: number; unread: number }>();
  if (only !== undefined) counts.set(only, { total: 0, unread: 0 });
  for (const record of records) {
    const address = record.key.slice(0, record.key.indexOf('/'));
    const count = counts.get(address) ?? { total: 0, unread: 0 };
    count.total++;
    if (record.value.labelIds.includes('UNREAD') && record.value.labelIds.includes('INBOX')) count.unread++;
    counts.set(address, count);
  }
  return [...counts].map(([address, count]) => ({ address, ...count })).sort((a, b) => (a.address < b.address ? -1 : 1));
}
