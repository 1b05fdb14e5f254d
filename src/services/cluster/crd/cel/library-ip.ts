/**
 * The Kubernetes `ip` and `cidr` libraries: `ip(string)`, `isIP`, `ip.isCanonical`, the IP methods
 * (family, isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast),
 * `cidr(string)`, `isCIDR`, the CIDR methods (containsIP, containsCIDR, ip, masked, prefixLength)
 * and `string()` of both — parsed as Go's net/netip does (no zones, no IPv4-mapped IPv6, no
 * leading zeros), with ipaddr.js. Error texts from the apiserver's library.
 */
import ipaddr from 'ipaddr.js';
import { BOOL, INT, opaque, STRING } from './cel-types.ts';
import { type Overload, parsedAtRunTime, traversal } from './overloads.ts';
import { Opaque, RuleEvalError, type Value } from './runtime-values.ts';

const IP_TYPE = opaque('net.IP');
const CIDR_TYPE = opaque('net.CIDR');

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** IpValue is a `net.IP`. */
export class IpValue extends Opaque {
  readonly typeName = 'net.IP';
  constructor(readonly address: Address) {
    super();
  }
  /** text is the canonical form (RFC 5952 for IPv6). */
  get text(): string {
    return this.address.kind() === 'ipv6' ? (this.address as ipaddr.IPv6).toRFC5952String() : this.address.toString();
  }
  /** equals compares addresses. */
  equals(other: Opaque): boolean {
    return other instanceof IpValue && other.text === this.text;
  }
}

/** CidrValue is a `net.CIDR`: an address (host bits kept) and a prefix length. */
export class CidrValue extends Opaque {
  readonly typeName = 'net.CIDR';
  constructor(
    readonly ip: IpValue,
    readonly bits: number,
  ) {
    super();
  }
  /** equals compares address and length. */
  equals(other: Opaque): boolean {
    return other instanceof CidrValue && other.bits === this.bits && other.ip.equals(this.ip);
  }
  /** contains tells whether an address is in the prefix. */
  contains(address: Address): boolean {
    return address.kind() === this.ip.address.kind() && address.match(this.ip.address as never, this.bits);
  }
}

function parseAddress(text: string): Address | undefined {
  if (IPV4.test(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(':') && ipaddr.IPv6.isValid(text) && !text.includes('%')) return ipaddr.IPv6.parse(text);
  return undefined;
}

function isMapped(address: Address): boolean {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress();
}

/** parseIp reads an address as the library's `ip()` does. */
export function parseIp(text: string): IpValue {
  if (text.includes('%')) throw new RuleEvalError('IP Address with zone value is not allowed');
  const address = parseAddress(text);
  if (address === undefined) throw new RuleEvalError(`IP Address '${text}' parse error during conversion from string`);
  if (isMapped(address)) throw new RuleEvalError('IPv4-mapped IPv6 address is not allowed');
  return new IpValue(address);
}

/** parseCidr reads a prefix as the library's `cidr()` does. */
export function parseCidr(text: string): CidrValue {
  const slash = text.lastIndexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  if (addressText.includes('%')) throw new RuleEvalError('CIDR with zone value is not allowed');
  const address = parseAddress(addressText);
  const bitsText = slash < 0 ? '' : text.slice(slash + 1);
  const max = address?.kind() === 'ipv4' ? 32 : 128;
  if (address === undefined || !/^(0|[1-9]\d{0,2})$/.test(bitsText) || Number(bitsText) > max) {
    throw new RuleEvalError('network address parse error during conversion from string');
  }
  if (isMapped(address)) throw new RuleEvalError('IPv4-mapped IPv6 address is not allowed');
  return new CidrValue(new IpValue(address), Number(bitsText));
}

function ip(v: Value): IpValue {
  if (typeof v === 'string') return parseIp(v);
  if (!(v instanceof IpValue)) throw new RuleEvalError('no such overload');
  return v;
}

function cidr(v: Value): CidrValue {
  if (typeof v === 'string') return parseCidr(v);
  if (!(v instanceof CidrValue)) throw new RuleEvalError('no such overload');
  return v;
}

function succeeds(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

function inRange(address: Address, range: string): boolean {
  const [base, bits] = ipaddr.parseCIDR(range);
  return address.kind() === base.kind() && address.match(base as never, bits);
}

function masked(value: CidrValue): CidrValue {
  const bytes = value.ip.address.toByteArray();
  const masked = bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, value.bits - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return new CidrValue(new IpValue(ipaddr.fromByteArray(masked)), value.bits);
}

const ipMethod = (name: string, result: Overload['result'], impl: (v: IpValue) => Value): Overload => ({
  name,
  member: true,
  params: [IP_TYPE],
  result,
  impl: (args) => impl(ip(args[0]!)),
});

/** IP_OVERLOADS are the ip and cidr libraries. */
export const IP_OVERLOADS: readonly Overload[] = [
  { name: 'ip', member: false, params: [STRING], result: IP_TYPE, ...parsedAtRunTime(0), impl: (args) => parseIp(String(args[0])) },
  { name: 'isIP', member: false, params: [STRING], result: BOOL, ...parsedAtRunTime(0), impl: (args) => succeeds(() => parseIp(String(args[0]))) },
  {
    name: 'ip.isCanonical',
    member: false,
    params: [STRING],
    result: BOOL,
    ...parsedAtRunTime(0, 2),
    impl: (args) => parseIp(String(args[0])).text === args[0],
  },
  ipMethod('family', INT, (v) => (v.address.kind() === 'ipv4' ? 4n : 6n)),
  ipMethod('isUnspecified', BOOL, (v) => v.address.range() === 'unspecified'),
  ipMethod('isLoopback', BOOL, (v) => v.address.range() === 'loopback'),
  ipMethod('isLinkLocalMulticast', BOOL, (v) => inRange(v.address, v.address.kind() === 'ipv4' ? '224.0.0.0/24' : 'ff02::/16')),
  ipMethod('isLinkLocalUnicast', BOOL, (v) => inRange(v.address, v.address.kind() === 'ipv4' ? '169.254.0.0/16' : 'fe80::/10')),
  ipMethod('isGlobalUnicast', BOOL, (v) => {
    const a = v.address;
    if (a.kind() === 'ipv4' && a.toString() === '255.255.255.255') return false;
    const multicast = inRange(a, a.kind() === 'ipv4' ? '224.0.0.0/4' : 'ff00::/8');
    const linkLocal = inRange(a, a.kind() === 'ipv4' ? '169.254.0.0/16' : 'fe80::/10');
    return a.range() !== 'unspecified' && a.range() !== 'loopback' && !multicast && !linkLocal;
  }),
  { name: 'string', member: false, params: [IP_TYPE], result: STRING, impl: (args) => ip(args[0]!).text },
  { name: 'cidr', member: false, params: [STRING], result: CIDR_TYPE, ...parsedAtRunTime(0), impl: (args) => parseCidr(String(args[0])) },
  { name: 'isCIDR', member: false, params: [STRING], result: BOOL, ...parsedAtRunTime(0), impl: (args) => succeeds(() => parseCidr(String(args[0]))) },
  { name: 'containsIP', member: true, params: [CIDR_TYPE, IP_TYPE], result: BOOL, impl: (args) => cidr(args[0]!).contains(ip(args[1]!).address) },
  {
    name: 'containsIP',
    member: true,
    params: [CIDR_TYPE, STRING],
    result: BOOL,
    ...traversal(1),
    impl: (args) => cidr(args[0]!).contains(ip(args[1]!).address),
  },
  ...[CIDR_TYPE, STRING].map(
    (other): Overload => ({
      name: 'containsCIDR',
      member: true,
      params: [CIDR_TYPE, other],
      result: BOOL,
      impl: (args) => {
        const outer = cidr(args[0]!);
        const inner = cidr(args[1]!);
        return inner.bits >= outer.bits && outer.contains(inner.ip.address);
      },
    }),
  ),
  { name: 'ip', member: true, params: [CIDR_TYPE], result: IP_TYPE, impl: (args) => cidr(args[0]!).ip },
  { name: 'masked', member: true, params: [CIDR_TYPE], result: CIDR_TYPE, impl: (args) => masked(cidr(args[0]!)) },
  { name: 'prefixLength', member: true, params: [CIDR_TYPE], result: INT, impl: (args) => BigInt(cidr(args[0]!).bits) },
  { name: 'string', member: false, params: [CIDR_TYPE], result: STRING, impl: (args) => `${cidr(args[0]!).ip.text}/${cidr(args[0]!).bits}` },
];
