/**
 * What the guard reads from and writes to the headers of a proxied request, as pure functions
 * over node's `rawHeaders` (name, value, name, value…, in the order and case the client sent):
 * the request as the policy sees it (lower-case names, repeats joined with ", "), the client's
 * address (the peer, or an X-Forwarded-For entry when proxies in front are trusted), and the
 * headers sent upstream (hop-by-hop ones dropped, X-Forwarded-For appended, the policy's
 * `requestHeadersToAdds` added or overwriting).
 */
import ipaddr from 'ipaddr.js';
import { HOP_BY_HOP } from '../lib/hop-by-hop.ts';
import { readLatin1Utf8 } from './engine.ts';

/** HeaderPair is one header as sent: name in the client's case, value. */
export type HeaderPair = readonly [name: string, value: string];

/** pairsOf turns node's flat `rawHeaders` into pairs. */
export function pairsOf(rawHeaders: readonly string[]): HeaderPair[] {
  const pairs: HeaderPair[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
}

/**
 * policyHeaders are the headers as a policy sees them: names lower-case, a repeated header one
 * value joined with ", " (rules-language reference), each value's bytes (node's one character
 * per byte) read as UTF-8 text as the engine reads bytes, so a header reads as the same text
 * given to the what-if API does.
 */
export function policyHeaders(pairs: readonly HeaderPair[]): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, raw] of pairs) {
    const key = name.toLowerCase();
    const value = readLatin1Utf8(raw);
    const previous = headers[key];
    headers[key] = previous === undefined ? value : `${previous}, ${value}`;
  }
  return headers;
}

/** peerAddress is the socket's address, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) read as the IPv4 one. */
export function peerAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return '0.0.0.0';
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(remoteAddress) ? remoteAddress.slice(7) : remoteAddress;
}

/** forwardedFor lists the X-Forwarded-For entries of every such header, in order, trimmed. */
export function forwardedFor(pairs: readonly HeaderPair[]): string[] {
  return pairs
    .filter(([name]) => name.toLowerCase() === 'x-forwarded-for')
    .flatMap(([, value]) => value.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * clientAddress is the address the policy sees as `origin.ip`: with `trustedProxies` N > 0 it is
 * the Nth X-Forwarded-For entry from the right (each trusted proxy appended the address it saw),
 * when there are that many and it is an IP; otherwise the peer's.
 */
export function clientAddress(peer: string, pairs: readonly HeaderPair[], trustedProxies: number): string {
  if (trustedProxies <= 0) return peer;
  const entries = forwardedFor(pairs);
  const entry = entries[entries.length - trustedProxies];
  return entry !== undefined && isIp(entry) ? entry : peer;
}

/** isIp says whether the text is an IPv4 (four decimal parts) or IPv6 address. */
export function isIp(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
}

/** HeaderToAdd is a header the policy adds to (or overwrites in) the upstream request. */
export interface HeaderToAdd {
  readonly name: string;
  readonly value: string;
}

/**
 * upstreamHeaders are the headers sent to the upstream, as a flat raw list: hop-by-hop headers
 * and those the Connection header names (except Host and Content-Length) are dropped (for an
 * upgrade, `Connection: Upgrade` and `Upgrade` are kept), a chunked body keeps its
 * Transfer-Encoding, the peer's address is appended to X-Forwarded-For, and each header to add
 * replaces any the client sent under that name.
 */
export function upstreamHeaders(pairs: readonly HeaderPair[], peer: string, add: readonly HeaderToAdd[], upgrade: boolean): string[] {
  const named = new Set<string>();
  for (const [name, value] of pairs) {
    if (name.toLowerCase() !== 'connection') continue;
    for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  }
  // The Host decided on is the Host forwarded, and the body is framed as it was read: a Connection
  // header naming Host or Content-Length does not drop them (without a length, a GET's body would
  // go upstream unframed, read there as the next request).
  named.delete('host');
  named.delete('content-length');
  const replaced = new Set(add.map((header) => header.name.toLowerCase()));
  const out: string[] = [];
  const forwarded: string[] = [];
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    if (key === 'x-forwarded-for') {
      forwarded.push(value);
      continue;
    }
    if (HOP_BY_HOP.has(key) || named.has(key) || replaced.has(key)) continue;
    out.push(name, value);
  }
  if (!replaced.has('x-forwarded-for')) out.push('X-Forwarded-For', [...forwarded, peer].join(', '));
  // A chunked body is sent on chunked, whatever the method (node frames only some methods' bodies
  // by default): the codings as the client sent them, so the upstream reads the body as it was meant.
  const codings = pairs.filter(([name]) => name.toLowerCase() === 'transfer-encoding').map(([, value]) => value.trim());
  if (codings.length > 0 && !upgrade) out.push('Transfer-Encoding', codings.join(', '));
  for (const header of add) out.push(header.name, header.value);
  if (upgrade) {
    const upgradeTo = pairs.find(([name]) => name.toLowerCase() === 'upgrade');
    if (upgradeTo !== undefined) out.push('Connection', 'Upgrade', 'Upgrade', upgradeTo[1]);
  }
  return out;
}

/** downstreamHeaders are the upstream answer's headers for the client: hop-by-hop headers and those its Connection header names dropped. */
export function downstreamHeaders(rawHeaders: readonly string[]): string[] {
  const pairs = pairsOf(rawHeaders);
  const named = new Set<string>();
  for (const [name, value] of pairs) if (name.toLowerCase() === 'connection') for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  const out: string[] = [];
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    if (HOP_BY_HOP.has(key) || named.has(key)) continue;
    out.push(name, value);
  }
  return out;
}
