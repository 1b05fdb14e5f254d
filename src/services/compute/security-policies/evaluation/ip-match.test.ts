import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inRange, parseIp, parseIpRange } from './ip-match.ts';

const contains = (range: string, ip: string): boolean => {
  const parsedRange = parseIpRange(range);
  const address = parseIp(ip);
  assert.ok(parsedRange !== undefined && address !== undefined);
  return inRange(address, parsedRange);
};

describe('IP ranges', () => {
  it('matches IPv4 and IPv6 CIDRs, bare addresses as single hosts, and * as everything', () => {
    assert.equal(contains('198.51.100.0/24', '198.51.100.7'), true);
    assert.equal(contains('198.51.100.0/24', '198.51.101.1'), false);
    assert.equal(contains('2001:db8::/32', '2001:db8::1'), true);
    assert.equal(contains('2001:db8::/32', '2001:db9::1'), false);
    assert.equal(contains('198.51.100.1', '198.51.100.1'), true);
    assert.equal(contains('198.51.100.1', '198.51.100.2'), false);
    assert.equal(contains('*', '2001:db8::1'), true);
    assert.equal(contains('0.0.0.0/0', '203.0.113.9'), true);
  });

  it('never matches across families, and reads an IPv4-mapped IPv6 peer as IPv4', () => {
    assert.equal(contains('0.0.0.0/0', '2001:db8::1'), false);
    assert.equal(contains('::/0', '192.0.2.1'), false);
    assert.equal(contains('192.0.2.0/24', '::ffff:192.0.2.1'), true);
    assert.equal(parseIp('::ffff:192.0.2.1')?.toString(), '192.0.2.1');
  });

  it('rejects what is not an address or range', () => {
    assert.equal(parseIp('1.2.3'), undefined);
    assert.equal(parseIp('010.1.2.3x'), undefined);
    assert.equal(parseIpRange('1.2.3.4/33'), undefined);
    assert.equal(parseIpRange('1.2.3.4/x'), undefined);
    assert.equal(parseIpRange('::1/129'), undefined);
    assert.equal(parseIpRange('bad'), undefined);
  });
});
