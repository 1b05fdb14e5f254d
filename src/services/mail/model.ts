import type { IdSource } from '../../lib/ids.ts';
import type { StoredPart } from './mime/parse-message.ts';

/** KINDS are the store kinds of the mail family; every key starts with the mailbox address and a slash. */
export const KINDS = {
  messages: 'mail.messages',
  drafts: 'mail.drafts',
  labels: 'mail.labels',
  history: 'mail.history',
  mailboxes: 'mail.mailboxes',
  /** Raw file name → how many messages (in any mailbox) refer to it. */
  files: 'mail.files',
  /** Message-ID header → message, per mailbox, for threading replies. */
  messageIds: 'mail.messageIds',
} as const;

/** SearchFields are what `q` matches against, kept with each message. */
export interface SearchFields {
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  /** The Message-ID header without angle brackets. */
  readonly rfc822msgid: string;
  readonly hasAttachment: boolean;
}

/** RelayState records what the SMTP relay did with a delivered message (a failure never loses the message). */
export interface RelayState {
  readonly state: 'pending' | 'relayed' | 'failed';
  readonly detail?: string;
}

/** MessageRecord is one message in one mailbox. Its raw bytes are the store file `mail/raw/<file>` (or inline in its `mail.files` record). */
export interface MessageRecord {
  readonly id: string;
  readonly threadId: string;
  readonly labelIds: readonly string[];
  readonly snippet: string;
  readonly historyId: number;
  /** Epoch milliseconds. */
  readonly internalDate: number;
  readonly sizeEstimate: number;
  readonly payload: StoredPart;
  /** The raw message's name: a store file under `mail/raw/`, or an inline raw (see message-files.ts). */
  readonly file: string;
  readonly search: SearchFields;
  readonly relay?: RelayState;
}

/** DraftRecord ties a draft id to its message (which carries the DRAFT label). */
export interface DraftRecord {
  readonly id: string;
  readonly messageId: string;
}

/** LabelRecord is a user label. */
export interface LabelRecord {
  readonly id: string;
  readonly name: string;
  readonly messageListVisibility?: string;
  readonly labelListVisibility?: string;
  readonly color?: { readonly textColor?: string; readonly backgroundColor?: string };
}

/** FileRefs counts the messages that share one raw (a send's copies in every recipient's mailbox); small raws keep their bytes here. */
export interface FileRefs {
  readonly refs: number;
  /** The raw message, base64, when it is kept inline (see message-files.ts INLINE_RAW_LIMIT). */
  readonly data?: string;
  /** The first text part, lower-cased, for free-text search: kept once for every copy, for raws kept as files (an inline raw's is read from `data`). */
  readonly text?: string;
}

/** MailboxRecord holds a mailbox's counters. */
export interface MailboxRecord {
  readonly historyId: number;
  readonly nextLabel: number;
}

/** MessageRef is a message as history and lists name it. */
export interface MessageRef {
  readonly id: string;
  readonly threadId: string;
}

/** HistoryRecord is one change to a mailbox, in the shape of the API's History. */
export interface HistoryRecord {
  readonly id: number;
  readonly messages: readonly MessageRef[];
  readonly messagesAdded?: readonly { readonly message: MessageRef & { readonly labelIds: readonly string[] } }[];
  readonly messagesDeleted?: readonly { readonly message: MessageRef & { readonly labelIds: readonly string[] } }[];
  readonly labelsAdded?: readonly { readonly message: MessageRef & { readonly labelIds: readonly string[] }; readonly labelIds: readonly string[] }[];
  readonly labelsRemoved?: readonly { readonly message: MessageRef & { readonly labelIds: readonly string[] }; readonly labelIds: readonly string[] }[];
}

/** key joins a mailbox and a name into a store key. */
export function key(mailbox: string, name: string): string {
  return `${mailbox}/${name}`;
}

/** historyKey orders history records numerically under the mailbox. */
export function historyKey(mailbox: string, id: number): string {
  return key(mailbox, String(id).padStart(16, '0'));
}

/**
 * newMessageId makes Gmail's 16-hex message id: the creation time in milliseconds shifted left
 * by 20 bits plus 20 random bits, so ids sort by time as Gmail's do.
 */
export function newMessageId(now: number, ids: IdSource): string {
  const random = BigInt(ids.bytes(3).readUIntBE(0, 3) & 0xfffff);
  return ((BigInt(now) << 20n) | random).toString(16).padStart(16, '0');
}

/** newDraftId makes a draft id: `r-` and a 63-bit decimal. */
export function newDraftId(ids: IdSource): string {
  return `r-${(ids.bytes(8).readBigUInt64BE(0) >> 1n).toString()}`;
}

/** SYSTEM_LABELS are Gmail's system labels, as labels.list shows them. */
export const SYSTEM_LABELS: readonly { readonly id: string; readonly messageListVisibility?: string; readonly labelListVisibility?: string }[] = [
  { id: 'CHAT', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'SENT' },
  { id: 'INBOX' },
  { id: 'IMPORTANT', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'TRASH', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'DRAFT' },
  { id: 'SPAM', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'CATEGORY_FORUMS', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'CATEGORY_UPDATES', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'CATEGORY_PERSONAL', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'CATEGORY_PROMOTIONS', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'CATEGORY_SOCIAL', messageListVisibility: 'hide', labelListVisibility: 'labelHide' },
  { id: 'STARRED' },
  { id: 'UNREAD' },
];

/** SYSTEM_LABEL_IDS is the set of system label ids. */
export const SYSTEM_LABEL_IDS: ReadonlySet<string> = new Set(SYSTEM_LABELS.map((label) => label.id));
