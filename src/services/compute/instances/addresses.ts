/**
 * The addresses an instance gets: its network interface's internal IPv4 address from the
 * subnetwork's range (the first free one after the range's network, gateway and the two Google
 * keeps: `.2` onwards), and an access config's external address from TEST-NET-3 (203.0.113.0/24,
 * RFC 5737), a documentation range no real address can clash with.
 */

/** EXTERNAL_RANGE is where external (NAT) addresses come from. */
export const EXTERNAL_RANGE = '203.0.113.0/24';

function toNumber(ip: string): number {
  return ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function toText(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** freeAddress is the first address of `cidr` from offset `first` that `used` does not hold, undefined when the range is full. */
export function freeAddress(cidr: string, used: ReadonlySet<string>, first = 2): string | undefined {
  const [base = '0.0.0.0', bits = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = toNumber(base);
  // The last address is the range's broadcast, the one before it kept by Google.
  for (let offset = first; offset < size - 2; offset++) {
    const candidate = toText(start + offset);
    if (!used.has(candidate)) return candidate;
  }
  return undefined;
}
