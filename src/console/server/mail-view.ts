/**
 * The console's mail view over the mail family's own reading code, through its face
 * (services/mail/public.ts: the same messages, the same `q` syntax, the same paging as the API):
 * which mailboxes a principal may open, their unread counts, a page of messages, one message with
 * its bodies, headers, attachments and thread. The family's errors become the console's.
 */
import type { Clock } from '../../lib/clock.ts';
import type { Store } from '../../store/store.ts';
import {
  attachmentIdOf,
  type MailboxCount,
  type MailboxReader,
  mailboxCounts,
  MailError,
  type MailMessage,
  type MailMessagePart,
  openMailboxReader,
} from '../../services/mail/public.ts';
import { ConsoleError } from './errors.ts';
import { mailReach, mailRefusal, mayReadMailbox } from './mail-access.ts';
import type { SignedIn } from './sessions.ts';

/** MailboxSummary is one mailbox in the side list: its address, how many messages, how many unread in the inbox. */
export type MailboxSummary = MailboxCount;

/** MessageSummary is one row of the message list. */
export interface MessageSummary {
  readonly id: string;
  readonly threadId: string;
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly snippet: string;
  readonly date: number;
  readonly labelIds: readonly string[];
  readonly hasAttachment: boolean;
}

/** AttachmentSummary is one downloadable part. */
export interface AttachmentSummary {
  readonly partId: string;
  readonly filename: string;
  readonly mimeType: string;
  readonly size: number;
}

/** MessageDetail is the message view's data (the HTML body is served on its own, sandboxed). */
export interface MessageDetail extends MessageSummary {
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly text: string | null;
  /** The partId of the HTML body, fetched from the `html` route into a sandboxed frame. */
  readonly htmlPart: string | null;
  readonly attachments: readonly AttachmentSummary[];
  readonly thread: readonly MessageSummary[];
}

/** TEXT_VIEW_LIMIT bounds the text body sent to the view (the raw download has it all). */
const TEXT_VIEW_LIMIT = 512 * 1024;

/** MailView answers the console's mail requests for one store. */
export class MailView {
  readonly #mailboxes: MailboxReader;

  constructor(
    private readonly store: Store,
    clock: Clock,
  ) {
    this.#mailboxes = openMailboxReader(store, clock);
  }

  /** check throws 403 unless the principal may read the mailbox as the Gmail API decides it (scopes included: mail-access.ts). */
  check(signedIn: SignedIn, mailbox: string): void {
    if (!mayReadMailbox(signedIn.principal, mailbox)) throw new ConsoleError(403, mailRefusal(signedIn.principal, mailbox));
  }

  /** mailboxes lists the mailboxes the principal may read that hold messages (its own always), with counts; 403 when its token reads no mail. */
  async mailboxes(signedIn: SignedIn): Promise<MailboxSummary[]> {
    const own = signedIn.principal.email.toLowerCase();
    const reach = mailReach(signedIn.principal);
    if (reach === 'none') throw new ConsoleError(403, mailRefusal(signedIn.principal, own));
    return mailboxCounts(this.store, reach === 'all' ? 'every' : { only: own });
  }

  /** list is one page of a mailbox's messages, newest first, filtered by `q` (Gmail's syntax). */
  async list(mailbox: string, q: string | undefined, pageToken: string | undefined, maxResults: number) {
    const page = await mailErrors(() =>
      this.#mailboxes.list(mailbox, {
        labelIds: [],
        maxResults,
        includeSpamTrash: true,
        ...(q === undefined ? {} : { q }),
        ...(pageToken === undefined ? {} : { pageToken }),
      }),
    );
    return { messages: page.items.map(summaryOf), total: page.total, ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken }) };
  }

  /** message is one message for the view: headers, text, where its HTML is, attachments, thread. */
  async message(mailbox: string, id: string): Promise<MessageDetail> {
    const message = await mailErrors(() => this.#mailboxes.message(mailbox, id));
    const parts = leaves(message.payload);
    const textPart = parts.find((part) => part.mimeType === 'text/plain' && part.filename === '');
    const htmlPart = parts.find((part) => part.mimeType === 'text/html' && part.filename === '');
    const text = textPart === undefined ? null : (await this.part(mailbox, id, textPart.partId)).subarray(0, TEXT_VIEW_LIMIT).toString('utf8');
    const thread = await mailErrors(() => this.#mailboxes.thread(mailbox, message.threadId));
    return {
      ...summaryOf(message),
      headers: message.payload.headers.map((header) => ({ name: header.name, value: header.value })),
      text,
      htmlPart: htmlPart?.partId ?? null,
      attachments: parts
        .filter((part) => part !== textPart && part !== htmlPart)
        .map((part) => ({ partId: part.partId, filename: part.filename, mimeType: part.mimeType, size: part.body.size })),
      thread: thread.map(summaryOf),
    };
  }

  /** part is the decoded body of one leaf part. */
  async part(mailbox: string, id: string, partId: string): Promise<Buffer> {
    const answer = await mailErrors(() => this.#mailboxes.attachment(mailbox, id, attachmentIdOf(id, partId)));
    return Buffer.from(String(answer['data']), 'base64url');
  }

  /** partInfo finds a leaf part's name and type. */
  async partInfo(mailbox: string, id: string, partId: string): Promise<MailMessagePart> {
    const message = await mailErrors(() => this.#mailboxes.message(mailbox, id));
    const part = leaves(message.payload).find((each) => each.partId === partId);
    if (part === undefined) throw new ConsoleError(404, `Message ${id} has no part ${partId}.`);
    return part;
  }

  /** raw is the message's source as it was sent. */
  async raw(mailbox: string, id: string): Promise<Buffer> {
    const message = await mailErrors(() => this.#mailboxes.message(mailbox, id));
    const rendered = await this.#mailboxes.render(message, 'raw', []);
    return Buffer.from(String(rendered['raw']), 'base64url');
  }
}

/** summaryOf is a message's list row. */
function summaryOf(message: MailMessage): MessageSummary {
  const header = (name: string): string => message.payload.headers.find((each) => each.name.toLowerCase() === name)?.value ?? '';
  return {
    id: message.id,
    threadId: message.threadId,
    from: header('from'),
    to: header('to'),
    subject: header('subject'),
    snippet: message.snippet,
    date: message.internalDate,
    labelIds: message.labelIds,
    hasAttachment: message.search.hasAttachment,
  };
}

/** leaves lists a payload's leaf parts in order. */
function leaves(part: MailMessagePart): MailMessagePart[] {
  return part.parts === undefined ? [part] : part.parts.flatMap(leaves);
}

/** mailErrors turns the mail family's errors into the console's (a 404 stays a 404, a bad `q` a 400). */
async function mailErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MailError) throw new ConsoleError(error.httpStatus, error.httpStatus === 404 ? 'No such message in this mailbox.' : error.message);
    throw error;
  }
}
