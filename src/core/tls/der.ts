/**
 * DER (ITU-T X.690), the subset fogbank's X.509 certificates need: writing SEQUENCE, SET,
 * INTEGER, OBJECT IDENTIFIER, UTF8String, BIT STRING, OCTET STRING, BOOLEAN, UTCTime and
 * GeneralizedTime, and context-specific tags; reading one element's bounds, to take a Name or a
 * public key out of a certificate as it is encoded. Definite lengths only, as DER requires.
 */

/** tlv is one element: its tag byte, its length (short form under 128, else long form) and its content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  const length = content.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const bytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
    header = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(header), content]);
}

/** sequence is a SEQUENCE of the given encoded elements. */
export function sequence(...elements: readonly Uint8Array[]): Buffer {
  return tlv(0x30, Buffer.concat(elements));
}

/** set is a SET of the given encoded elements (one element here: a name's RDN). */
export function set(...elements: readonly Uint8Array[]): Buffer {
  return tlv(0x31, Buffer.concat(elements));
}

/** integer is an INTEGER of big-endian two's-complement bytes, given minimal (the caller's serial or a small number). */
export function integer(value: number | Uint8Array): Buffer {
  if (typeof value !== 'number') return tlv(0x02, value);
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest & 0xff);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  if ((bytes[0] ?? 0) & 0x80) bytes.unshift(0);
  return tlv(0x02, Uint8Array.from(bytes));
}

/** oid is an OBJECT IDENTIFIER from its dotted text: the first two arcs as 40·a + b, each arc base 128. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const values = [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)];
  const bytes: number[] = [];
  for (const value of values) {
    const group: number[] = [value & 0x7f];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) group.unshift(0x80 | (rest & 0x7f));
    bytes.push(...group);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** utf8String is a UTF8String. */
export function utf8String(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'));
}

/** bitString is a BIT STRING: the count of unused bits in the last byte, then the bytes. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

/** octetString is an OCTET STRING. */
export function octetString(bytes: Uint8Array): Buffer {
  return tlv(0x04, bytes);
}

/** TRUE is the BOOLEAN true (DER: 0xff). */
export const TRUE = Buffer.from([0x01, 0x01, 0xff]);

/** contextTag is a context-specific tag number: constructed (EXPLICIT, or an implicit SEQUENCE) or primitive (an implicit string). */
export function contextTag(number: number, content: Uint8Array, constructed: boolean): Buffer {
  return tlv(0x80 | (constructed ? 0x20 : 0) | number, content);
}

/** time is an X.509 Time (RFC 5280 4.1.2.5): UTCTime through 2049, GeneralizedTime from 2050, in UTC to the second. */
export function time(at: Date): Buffer {
  const year = at.getUTCFullYear();
  const two = (n: number) => String(n).padStart(2, '0');
  const rest = `${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(`${two(year % 100)}${rest}`, 'latin1'));
  return tlv(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'latin1'));
}

/** Element is where one encoded element lies in a buffer: its tag, where it starts, where its content starts and where it ends. */
export interface Element {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

/** readElement reads the element starting at `offset` (single-byte tags, definite lengths), or throws on a truncated one. */
export function readElement(der: Uint8Array, offset: number): Element {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) throw new Error('DER: truncated element');
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[contentStart + i] ?? 0);
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > der.length) throw new Error('DER: truncated element');
  return { tag, start: offset, contentStart, end };
}

/** children are the elements inside a constructed element, in order. */
export function children(der: Uint8Array, parent: Element): Element[] {
  const out: Element[] = [];
  for (let at = parent.contentStart; at < parent.end; ) {
    const child = readElement(der, at);
    out.push(child);
    at = child.end;
  }
  return out;
}
