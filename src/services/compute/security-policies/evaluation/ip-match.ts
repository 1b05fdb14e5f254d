import ipaddr from 'ipaddr.js';
import { BoundedMap } from '../../../../lib/bounded-map.ts';

/**
 * IP addresses and ranges for SRC_IPS_V1 and `inIpRange`, with ipaddr.js. An IPv4-mapped IPv6
 * peer (`::ffff:192.0.2.1`, how a dual-stack Node socket reports IPv4 clients) is read as the IPv4
 * address, so IPv4 ranges match it as they would at the load balancer.
 */

/** IpRange is a parsed CIDR (a bare address is its /32 or /128), or `*` for every address. */
export type IpRange = { readonly all: true } | { readonly all: false; readonly address: ipaddr.IPv4 | ipaddr.IPv6; readonly bits: number };

// Parsed addresses by text (bounded, and only texts as short as an address can be): a proxy sees
// the same few clients again and again. The address objects are never modified, so sharing them is safe.
const parsedAddresses = new BoundedMap<string, ipaddr.IPv4 | ipaddr.IPv6 | null>(4096);

/** parseIp reads an address, or returns undefined when the text is not one. */
export function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const cached = parsedAddresses.get(text);
  if (cached !== undefined) return cached ?? undefined;
  const parsed = readIp(text);
  if (text.length <= 64) parsedAddresses.set(text, parsed ?? null);
  return parsed;
}

function readIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const trimmed = text.trim();
  if (!ipaddr.IPv4.isValidFourPartDecimal(trimmed) && !ipaddr.IPv6.isValid(trimmed)) return undefined;
  const address = ipaddr.parse(trimmed);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** parseIpRange reads `*`, an address or a CIDR, or returns undefined when the text is none of them. */
export function parseIpRange(text: string): IpRange | undefined {
  if (text === '*') return { all: true };
  const slash = text.indexOf('/');
  const address = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (address === undefined) return undefined;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return { all: false, address, bits: max };
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return undefined;
  return { all: false, address, bits: Number(bitsText) };
}

/** inRange tells whether `address` lies in `range`; an address never matches a range of the other family. */
export function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, range: IpRange): boolean {
  if (range.all) return true;
  if (address.kind() !== range.address.kind()) return false;
  return address.match(range.address, range.bits);
}
