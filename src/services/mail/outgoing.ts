import { Headers } from '@zone-eu/mailsplit';
import libmime from 'libmime';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { Clock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import { invalidArgument } from './errors.ts';
import { allRecipients, addressesOf, readRecipients, type Recipients } from './mime/addresses.ts';
import { headerValue, readHeaderBlock, readHeaderBlockFrom } from './mime/header-block.ts';
import { parseMessage, parseMessageBytes, snippetOf, type ParsedMessage, type StoredPart } from './mime/parse-message.ts';
import type { MessageFiles, RawSource, StoredRaw } from './message-files.ts';
import type { SearchFields } from './model.ts';
import { checkRecipientCount } from './recipient-limit.ts';

/** OutgoingMessage is a message written as its sender's copy, ready to be stored (and delivered). */
export interface OutgoingMessage {
  readonly recipients: Recipients;
  /** Who gets a copy: every To, Cc and Bcc address, or an SMTP envelope's RCPT TO addresses. */
  readonly delivery: readonly string[];
  /** The sender's copy (Bcc kept). */
  readonly senderFile: StoredRaw;
  /** The recipients' copy: the same raw, or one without Bcc when the message has Bcc. */
  readonly deliveryFile: StoredRaw;
  readonly parsed: ParsedMessage;
  readonly snippet: string;
  readonly search: SearchFields;
  /** The first text part, lower-cased, for free-text search. */
  readonly text: string;
  /** Message-IDs this message answers (In-Reply-To, then References), without brackets. */
  readonly references: readonly string[];
  readonly subject: string;
}

/**
 * ComposeMode says what the message is for: sending needs recipients, and at most
 * `maxRecipients` of them; a draft needs neither (the limits apply when it is sent). A message
 * submitted over SMTP is sent to its `envelope` (RCPT TO, lower-cased), not to its headers:
 * envelope addresses no To, Cc or Bcc header names are Bcc, written into the sender's copy only,
 * as Gmail's Sent Mail shows them.
 */
export type ComposeMode = { readonly kind: 'send'; readonly maxRecipients: number; readonly envelope?: readonly string[] } | { readonly kind: 'draft' };

/**
 * composeOutgoing does to a raw message what Gmail does before storing it: checks To, Cc and
 * Bcc, requires a recipient and at most the recipient limit when sending (before a byte is
 * written), fills in or rewrites From to the sender, adds
 * Message-ID and Date when missing, writes the sender's copy (Bcc kept) and, when there is Bcc,
 * a copy without it for the recipients, then parses the payload. Headers that need no change
 * keep their exact bytes, so `format=raw` returns what was sent.
 */
export async function composeOutgoing(
  source: RawSource,
  sender: string,
  mode: ComposeMode,
  files: MessageFiles,
  clock: Clock,
  ids: IdSource,
): Promise<OutgoingMessage> {
  const block = source.kind === 'bytes' ? readHeaderBlock(source.bytes) : await readHeaderBlockFrom(files.stream(source));
  const { headers, bodyOffset } = block;
  let recipients = readRecipients(headers);
  const envelope = mode.kind === 'send' ? mode.envelope : undefined;
  if (mode.kind === 'send') {
    const count = envelope?.length ?? allRecipients(recipients).length;
    if (count === 0) throw invalidArgument('Recipient address required');
    checkRecipientCount(count, mode.maxRecipients);
  }
  const original = source.kind === 'bytes' ? source.bytes.subarray(0, bodyOffset) : undefined;
  const lineEnd = usesBareLf(original ?? headers.build()) ? '\n' : '\r\n';
  if (envelope !== undefined) {
    const named = new Set(allRecipients(recipients));
    const blind = envelope.filter((address) => !named.has(address));
    if (blind.length > 0) {
      append(headers, 'Bcc', blind.join(', '));
      recipients = { ...recipients, bcc: [...recipients.bcc, ...blind] };
    }
  }
  fillFrom(headers, sender);
  if (!headers.hasHeader('message-id')) append(headers, 'Message-ID', `<${ids.bytes(16).toString('base64url')}@mail.gmail.com>`);
  if (!headers.hasHeader('date')) append(headers, 'Date', rfc2822Date(clock.now()));
  const senderHeaders = headers.changed || original === undefined ? headers.build(lineEnd) : original;
  let senderFile: StoredRaw;
  if (source.kind !== 'bytes' && !headers.changed) senderFile = await files.adopt(source);
  else senderFile = await files.write(senderHeaders, source, bodyOffset);
  let deliveryFile = senderFile;
  if (headers.hasHeader('bcc')) {
    const delivered = new Headers(senderHeaders);
    delivered.remove('bcc');
    deliveryFile = await files.write(delivered.build(lineEnd), source, bodyOffset);
  }
  // Parsed from the headers already split off and the body in memory; a file is streamed.
  const parsed =
    source.kind === 'bytes' ? await parseMessageBytes(senderHeaders, source.bytes.subarray(bodyOffset)) : await parseMessage(await files.read(senderFile.name));
  const subject = headerValue(headers, 'subject') ?? '';
  const messageId = stripBrackets(headerValue(headers, 'message-id') ?? '');
  return {
    recipients,
    delivery: envelope ?? allRecipients(recipients),
    senderFile,
    deliveryFile,
    parsed,
    snippet: snippetOf(parsed.text),
    text: parsed.text.toLowerCase(),
    subject,
    references: [...messageIdsOf(headerValue(headers, 'in-reply-to')), ...messageIdsOf(headerValue(headers, 'references'))],
    search: {
      from: addressesOf(headerValue(headers, 'from')),
      to: recipients.to,
      cc: recipients.cc,
      bcc: recipients.bcc,
      subject,
      rfc822msgid: messageId,
      hasAttachment: parsed.hasAttachment,
    },
  };
}

/** withoutBcc is a payload as recipients see it: the same tree without the top-level Bcc header. */
export function withoutBcc(payload: StoredPart): StoredPart {
  return { ...payload, headers: payload.headers.filter((header) => header.name.toLowerCase() !== 'bcc') };
}

/** fillFrom makes From the sender's address: added when missing, rewritten (keeping the display name) when it is another address. */
function fillFrom(headers: Headers, sender: string): void {
  if (!headers.hasHeader('from')) {
    append(headers, 'From', sender);
    return;
  }
  const [first] = addressparser(headerValue(headers, 'from') ?? '', { flatten: true });
  if (first !== undefined && first.address.toLowerCase() === sender.toLowerCase()) return;
  const name = first?.name ?? '';
  const display = name === '' ? '' : /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}" ` : `${libmime.encodeWords(name, 'Q')} `;
  headers.update('From', `${display}<${sender}>`);
}

function append(headers: Headers, name: string, value: string): void {
  headers.add(name, value, headers.getList().length);
}

function usesBareLf(section: Buffer): boolean {
  const newline = section.indexOf(0x0a);
  return newline > 0 && section[newline - 1] !== 0x0d;
}

/** messageIdsOf lists the `<id>` tokens of an In-Reply-To or References value. */
export function messageIdsOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [...value.matchAll(/<([^<>\s]+)>/g)].map((match) => match[1]!);
}

function stripBrackets(value: string): string {
  return value.trim().replace(/^<|>$/g, '');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** rfc2822Date formats an instant as an RFC 2822 Date header value in UTC (`Mon, 2 Jan 2025 10:04:05 +0000`). */
export function rfc2822Date(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]!}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]!} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** normalizeSubject strips reply and forward prefixes, so `Re: Hello` and `Hello` match for threading. */
export function normalizeSubject(subject: string): string {
  return subject
    .replace(/^(\s*(re|fwd?|aw|sv|wg)\s*(\[\d+\])?\s*:\s*)+/i, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
