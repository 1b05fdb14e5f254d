import { Headers } from '@zone-eu/mailsplit';
import libmime from 'libmime';
import { invalidArgument } from '../errors.ts';

/** HEADER_BLOCK_LIMIT is the largest header section read (Gmail's own limits are far below it). */
export const HEADER_BLOCK_LIMIT = 1024 * 1024;

/** HeaderBlock is a message's header section: its parsed lines and where the body starts in the raw bytes. */
export interface HeaderBlock {
  readonly headers: Headers;
  /** The byte offset of the body: just after the blank line, or the end when there is none. */
  readonly bodyOffset: number;
}

/** MessageHeader is one header as the Gmail API shows it: name as written, value unfolded and decoded. */
export interface MessageHeader {
  readonly name: string;
  readonly value: string;
}

/**
 * findBodyOffset finds the end of the header section in `bytes` (CRLF or bare-LF blank line), or
 * -1 when it is not there yet; `from` skips a start already searched.
 */
export function findBodyOffset(bytes: Buffer, from = 0): number {
  for (let i = bytes.indexOf(0x0a, from); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    if (i === 0) return 1;
    const next = bytes[i + 1];
    if (next === 0x0a) return i + 2;
    if (next === 0x0d && bytes[i + 2] === 0x0a) return i + 3;
  }
  return -1;
}

/** readHeaderBlock parses the header section at the start of `bytes`. */
export function readHeaderBlock(bytes: Buffer): HeaderBlock {
  const end = findBodyOffset(bytes);
  const bodyOffset = end === -1 ? bytes.length : end;
  return { headers: parseHeaders(bytes.subarray(0, bodyOffset)), bodyOffset };
}

/** readHeaderBlockFrom reads just enough of a raw message stream to parse its header section (and stops reading it there). */
export async function readHeaderBlockFrom(stream: AsyncIterable<Uint8Array>): Promise<HeaderBlock> {
  let bytes = Buffer.alloc(0);
  for await (const chunk of stream) {
    const searched = Math.max(0, bytes.length - 2);
    bytes = Buffer.concat([bytes, chunk]);
    const end = findBodyOffset(bytes, searched);
    if (end !== -1) return { headers: parseHeaders(bytes.subarray(0, end)), bodyOffset: end };
    if (bytes.length > HEADER_BLOCK_LIMIT) throw invalidArgument(`Invalid RFC822 message: the header section is longer than ${HEADER_BLOCK_LIMIT} bytes.`);
  }
  return { headers: parseHeaders(bytes), bodyOffset: bytes.length };
}

function parseHeaders(section: Buffer): Headers {
  const newline = section.indexOf(0x0a);
  const firstLine = section.subarray(0, newline === -1 ? section.length : newline).toString('latin1');
  // A message must open with a header field ("Name: value"); a body with no headers is not RFC 822.
  if (section.length > 0 && firstLine.trim() !== '' && !/^[!-9;-~]+:/.test(firstLine)) {
    throw invalidArgument('Invalid RFC822 message: it does not start with a header field.');
  }
  return new Headers(section);
}

/** headerValue is the unfolded, RFC 2047-decoded value of the first `name` header, or undefined. */
export function headerValue(headers: Headers, name: string): string | undefined {
  if (!headers.hasHeader(name)) return undefined;
  return decodeValue(headers.getFirst(name));
}

/** headerValues lists every `name` header's decoded value (To may appear twice). */
export function headerValues(headers: Headers, name: string): string[] {
  return headers.get(name).map((line) => decodeValue(line.slice(line.indexOf(':') + 1)));
}

/** listHeaders renders every header as the Gmail API's `{name, value}` list, in message order. */
export function listHeaders(headers: Headers): MessageHeader[] {
  return headers.getList().map(({ line }) => {
    const colon = line.indexOf(':');
    return { name: line.slice(0, colon).trim(), value: decodeValue(line.slice(colon + 1)) };
  });
}

function decodeValue(raw: string): string {
  const unfolded = raw.replace(/\r?\n(?=[ \t])/g, '').trim();
  try {
    return libmime.decodeWords(unfolded);
  } catch {
    return unfolded;
  }
}
