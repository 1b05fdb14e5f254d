import { once } from 'node:events';
import { Readable, type Transform } from 'node:stream';
import { MimeNode, Splitter } from '@zone-eu/mailsplit';
import libmime from 'libmime';
import { invalidArgument } from '../errors.ts';
import { findBodyOffset, listHeaders, type MessageHeader } from './header-block.ts';

/** INLINE_BODY_LIMIT is the largest body Gmail-style `data` kept inline; larger bodies and attachments get an attachmentId. */
export const INLINE_BODY_LIMIT = 256 * 1024;

/** TEXT_LIMIT is how much of the first text part is kept for the snippet and free-text search. */
const TEXT_LIMIT = 64 * 1024;

/**
 * StoredPart is a MessagePart as kept in the store: the API's shape, except that bodies are not
 * copied into it — a small body is marked `inline` (its `data` is read from the raw message when
 * rendered, so every copy of a send does not store the text again) and a large one or an
 * attachment `external` (its attachmentId is minted per message when rendered).
 */
export interface StoredPart {
  readonly partId: string;
  readonly mimeType: string;
  readonly filename: string;
  readonly headers: readonly MessageHeader[];
  readonly body: { readonly size: number; readonly inline?: true; readonly external?: true };
  readonly parts?: readonly StoredPart[];
}

/** ParsedMessage is what a raw message yields: the payload tree, the text for the snippet and search, and whether it has attachments. */
export interface ParsedMessage {
  readonly payload: StoredPart;
  /** The first text part (plain, else HTML without tags), decoded, at most TEXT_LIMIT characters. */
  readonly text: string;
  readonly hasAttachment: boolean;
}

interface Building {
  readonly node: MimeNode;
  readonly partId: string;
  readonly children: Building[];
  size: number;
  inline: Buffer[] | undefined;
  decoder: Transform | undefined;
}

/**
 * parseMessage splits a raw message with mailsplit into Gmail's payload tree: partIds `""`,
 * `"0"`, `"0.1"`…, each part's headers, `mimeType`, `filename` and decoded `body.size`; small
 * non-attachment bodies keep their base64url `data`, everything else is external (fetched
 * through attachments.get). The message streams through; only inline bodies are held.
 */
export async function parseMessage(source: Readable): Promise<ParsedMessage> {
  const splitter = new Splitter(SPLITTER_OPTIONS);
  const byNode = new Map<MimeNode, Building>();
  const finishing: Promise<unknown>[] = [];
  let root: Building | undefined;
  let current: Building | undefined;
  source.on('error', (error) => splitter.destroy(error));
  source.pipe(splitter);
  try {
    for await (const chunk of splitter as AsyncIterable<{ type: string; value?: Buffer } & Partial<MimeNode>>) {
      if (chunk.type === 'node') {
        const node = chunk as MimeNode;
        closeDecoder(current, finishing);
        const parent = node.parentNode === false ? undefined : byNode.get(node.parentNode);
        const partId = parent === undefined ? '' : parent.partId === '' ? String(parent.children.length) : `${parent.partId}.${parent.children.length}`;
        const building: Building = { node, partId, children: [], size: 0, inline: undefined, decoder: undefined };
        if (node.multipart === false) openDecoder(building);
        byNode.set(node, building);
        parent?.children.push(building);
        root ??= building;
        current = building;
        continue;
      }
      if (chunk.type === 'body' && chunk.value !== undefined && current?.decoder !== undefined) {
        if (!current.decoder.write(chunk.value)) await once(current.decoder, 'drain');
      }
    }
    closeDecoder(current, finishing);
    await Promise.all(finishing);
  } catch (error) {
    throw invalidArgument(`Invalid RFC822 message: ${(error as Error).message}`);
  }
  if (root === undefined) throw invalidArgument('Invalid RFC822 message: it is empty.');
  return parsedFrom(root);
}

/**
 * parseMessageBytes parses a message held in memory, its header section (ending with the blank
 * line) and body given apart, as parseMessage would: a message of one part (not multipart,
 * every message a client sends as plain text or HTML) is read from the header section already
 * split off and its body decoded in one write, without splitting the whole message into lines
 * again; any other goes through parseMessage.
 */
export async function parseMessageBytes(head: Buffer, body: Buffer): Promise<ParsedMessage> {
  // A head this short is within the splitter's header size limit however it is split into lines (64 bytes a line at least).
  // The splitter ends the header section at the first blank line: `head` must end there.
  if (head.length <= FAST_HEAD_LIMIT && findBodyOffset(head) === head.length) {
    const node = new MimeNode(false, SPLITTER_OPTIONS);
    node.addHeaderChunk(head);
    node.parseHeaders();
    if (node.multipart === false) {
      const building: Building = { node, partId: '', children: [], size: 0, inline: undefined, decoder: undefined };
      openDecoder(building);
      const finishing: Promise<unknown>[] = [];
      try {
        building.decoder!.write(body);
        closeDecoder(building, finishing);
        await Promise.all(finishing);
      } catch (error) {
        throw invalidArgument(`Invalid RFC822 message: ${(error as Error).message}`);
      }
      return parsedFrom(building);
    }
  }
  return parseMessage(Readable.from([head, body]));
}

// The splitter's own limit is 1 MiB of header lines, each counted as 64 bytes at least.
const FAST_HEAD_LIMIT = (1024 * 1024) / 64;

const SPLITTER_OPTIONS = { ignoreEmbedded: true };

/** parsedFrom renders the split tree into the payload, its text and whether it has attachments. */
function parsedFrom(root: Building): ParsedMessage {
  let hasAttachment = false;
  let plain: string | undefined;
  let html: string | undefined;
  const render = (building: Building): StoredPart => {
    const { node } = building;
    const mimeType = node.contentType === false ? 'text/plain' : node.contentType.toLowerCase();
    const filename = node.filename === false ? '' : node.filename;
    const headers = node.headers === false ? [] : listHeaders(node.headers);
    if (node.multipart !== false) return { partId: building.partId, mimeType, filename, headers, body: { size: 0 }, parts: building.children.map(render) };
    if (isAttachment(node)) hasAttachment = true;
    const data = building.inline === undefined ? undefined : Buffer.concat(building.inline);
    if (data !== undefined && !isAttachment(node)) {
      if (mimeType === 'text/plain' && plain === undefined) plain = decodeText(data, node.charset);
      if (mimeType === 'text/html' && html === undefined) html = decodeText(data, node.charset);
    }
    const body =
      data === undefined
        ? { size: building.size, external: true as const }
        : building.size === 0
          ? { size: 0 }
          : { size: building.size, inline: true as const };
    return { partId: building.partId, mimeType, filename, headers, body };
  };
  const payload = render(root);
  const text = plain ?? (html === undefined ? '' : htmlToText(html));
  return { payload, text: text.slice(0, TEXT_LIMIT), hasAttachment };
}

function isAttachment(node: MimeNode): boolean {
  return node.disposition === 'attachment' || node.filename !== false;
}

function openDecoder(building: Building): void {
  const decoder = building.node.getDecoder() as Transform;
  building.decoder = decoder;
  if (!isAttachment(building.node)) building.inline = [];
  decoder.on('data', (chunk: Buffer) => {
    building.size += chunk.length;
    if (building.inline === undefined) return;
    if (building.size > INLINE_BODY_LIMIT) building.inline = undefined;
    else building.inline.push(chunk);
  });
}

function closeDecoder(building: Building | undefined, finishing: Promise<unknown>[]): void {
  const decoder = building?.decoder;
  if (decoder === undefined) return;
  building!.decoder = undefined;
  finishing.push(once(decoder, 'end'));
  decoder.end();
}

function decodeText(bytes: Buffer, charset: string | false): string {
  try {
    // Node's TextDecoder knows the WHATWG charsets (latin1, windows-125x, iso-2022-jp, …).
    return new TextDecoder(charset === false ? 'utf-8' : libmime.normalizeCharset(charset)).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** htmlToText keeps an HTML body's text for the snippet: no tags, styles or scripts, entities decoded. */
function htmlToText(html: string): string {
  return html
    .replace(/<(style|script|head)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/gi, '&');
}

/** SNIPPET_LENGTH is how many characters of text Gmail shows as a snippet. */
export const SNIPPET_LENGTH = 200;

/** snippetOf makes Gmail's snippet: the text's whitespace collapsed, cut to SNIPPET_LENGTH, HTML-escaped. */
export function snippetOf(text: string): string {
  // Collapse only the head of a long text; fall back to all of it when the head is mostly whitespace.
  const head = text.length > 4 * SNIPPET_LENGTH ? text.slice(0, 4 * SNIPPET_LENGTH) : text;
  let collapsed = head.replace(/\s+/g, ' ').trim();
  if (collapsed.length < SNIPPET_LENGTH && head.length < text.length) collapsed = text.replace(/\s+/g, ' ').trim();
  collapsed = collapsed.slice(0, SNIPPET_LENGTH).trimEnd();
  return collapsed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
