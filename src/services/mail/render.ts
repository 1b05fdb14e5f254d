import { invalidArgument, notFound } from './errors.ts';
import type { StoredPart } from './mime/parse-message.ts';
import type { MessageRecord } from './model.ts';

/** MessageFormat is messages.get's `format`. */
export type MessageFormat = 'full' | 'metadata' | 'minimal' | 'raw';

/** readFormat checks a `format` query value (default full). */
export function readFormat(value: unknown): MessageFormat {
  if (value === undefined) return 'full';
  const text = String(value).toLowerCase();
  if (text === 'full' || text === 'metadata' || text === 'minimal' || text === 'raw') return text;
  throw invalidArgument(`Invalid value for format: ${String(value)}`);
}

/** attachmentIdOf names a part's external body; it encodes the message and part so attachments.get finds it. */
export function attachmentIdOf(messageId: string, partId: string): string {
  return Buffer.from(`${messageId}:${partId}`).toString('base64url');
}

/** partIdOfAttachment reads back the part an attachmentId names for `messageId`, or throws 404. */
export function partIdOfAttachment(messageId: string, attachmentId: string): string {
  const text = Buffer.from(attachmentId, 'base64url').toString('utf8');
  const [owner, partId] = text.split(':');
  if (owner !== messageId || partId === undefined) throw notFound();
  return partId;
}

/** renderPart turns a stored part into the API's MessagePart: external bodies get their attachmentId, inline ones their data from `bodies`. */
export function renderPart(messageId: string, part: StoredPart, bodies: ReadonlyMap<string, Buffer>): Record<string, unknown> {
  const data = part.body.inline === true ? bodies.get(part.partId) : undefined;
  const body =
    part.body.external === true
      ? { attachmentId: attachmentIdOf(messageId, part.partId), size: part.body.size }
      : data === undefined
        ? { size: part.body.size }
        : { size: part.body.size, data: data.toString('base64url') };
  return {
    partId: part.partId,
    mimeType: part.mimeType,
    filename: part.filename,
    headers: part.headers,
    body,
    ...(part.parts === undefined ? {} : { parts: part.parts.map((child) => renderPart(messageId, child, bodies)) }),
  };
}

/** renderMessage renders a message in a format; the caller reads `raw` (format raw) and the inline `bodies` (format full) from the raw message. */
export function renderMessage(
  message: MessageRecord,
  format: MessageFormat,
  metadataHeaders: readonly string[],
  raw: Buffer | undefined,
  bodies: ReadonlyMap<string, Buffer>,
): Record<string, unknown> {
  const base = { id: message.id, threadId: message.threadId, labelIds: message.labelIds };
  if (format === 'minimal')
    return {
      ...base,
      snippet: message.snippet,
      sizeEstimate: message.sizeEstimate,
      historyId: String(message.historyId),
      internalDate: String(message.internalDate),
    };
  const tail = { sizeEstimate: message.sizeEstimate, historyId: String(message.historyId), internalDate: String(message.internalDate) };
  if (format === 'raw') return { ...base, snippet: message.snippet, ...tail, raw: raw?.toString('base64url') ?? '' };
  if (format === 'metadata') {
    const wanted = new Set(metadataHeaders.map((name) => name.toLowerCase()));
    const headers = wanted.size === 0 ? message.payload.headers : message.payload.headers.filter((header) => wanted.has(header.name.toLowerCase()));
    return { ...base, snippet: message.snippet, payload: { mimeType: message.payload.mimeType, headers }, ...tail };
  }
  return { ...base, snippet: message.snippet, payload: renderPart(message.id, message.payload, bodies), ...tail };
}

/** findPart finds a part by partId in a stored tree. */
export function findPart(part: StoredPart, partId: string): StoredPart | undefined {
  if (part.partId === partId) return part;
  for (const child of part.parts ?? []) {
    const found = findPart(child, partId);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** inlinePartIds lists the parts whose data a full rendering includes. */
export function inlinePartIds(part: StoredPart, into: Set<string> = new Set()): Set<string> {
  if (part.body.inline === true) into.add(part.partId);
  for (const child of part.parts ?? []) inlinePartIds(child, into);
  return into;
}
