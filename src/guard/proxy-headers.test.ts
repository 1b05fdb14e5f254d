import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress, downstreamHeaders, pairsOf, peerAddress, policyHeaders, upstreamHeaders } from './proxy-headers.ts';

describe('the request as the policy sees it', () => {
  it('lower-cases names and joins a repeated header with ", "', () => {
    const pairs = pairsOf(['Host', 'example.com', 'X-API-Key', 'k', 'Accept', 'a/b', 'accept', 'c/d']);
    assert.deepEqual({ ...policyHeaders(pairs) }, { host: 'example.com', 'x-api-key': 'k', accept: 'a/b, c/d' });
  });

  it('keeps a header named like an Object member as an ordinary key', () => {
    const headers = policyHeaders(pairsOf(['__proto__', 'x', 'constructor', 'y']));
    // biome-ignore lint/suspicious/noProto: the test is about a key named __proto__ kept as an own, plain key
    assert.equal(headers['__proto__'], 'x');
    assert.equal(headers['constructor'], 'y');
    assert.equal(Object.getPrototypeOf(headers), null);
  });
});

describe("the client's address", () => {
  it('is the peer, an IPv4-mapped address read as IPv4', () => {
    assert.equal(peerAddress('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(peerAddress('2001:db8::1'), '2001:db8::1');
    const pairs = pairsOf(['X-Forwarded-For', '198.51.100.1']);
    assert.equal(clientAddress('127.0.0.1', pairs, 0), '127.0.0.1');
  });

  it('with N trusted proxies is the Nth X-Forwarded-For entry from the right, across repeated headers', () => {
    const pairs = pairsOf(['X-Forwarded-For', '1.1.1.1, 2.2.2.2', 'x-forwarded-for', '3.3.3.3']);
    assert.equal(clientAddress('127.0.0.1', pairs, 1), '3.3.3.3');
    assert.equal(clientAddress('127.0.0.1', pairs, 2), '2.2.2.2');
    assert.equal(clientAddress('127.0.0.1', pairs, 3), '1.1.1.1');
    // Fewer entries than trusted proxies, or an entry that is no address: the peer.
    assert.equal(clientAddress('127.0.0.1', pairs, 4), '127.0.0.1');
    assert.equal(clientAddress('127.0.0.1', pairsOf(['X-Forwarded-For', 'unknown']), 1), '127.0.0.1');
  });
});

describe('the headers sent upstream', () => {
  it('drops hop-by-hop headers and those Connection names, and appends the peer to X-Forwarded-For', () => {
    const pairs = pairsOf([
      'Host',
      'example.com',
      'Connection',
      'keep-alive, X-Secret',
      'Keep-Alive',
      'timeout=5',
      'X-Secret',
      's',
      'TE',
      'trailers',
      'Transfer-Encoding',
      'chunked',
      'Proxy-Authorization',
      'Basic x',
      'X-Forwarded-For',
      '1.1.1.1',
      'Upgrade',
      'h2c',
      'Cookie',
      'a=1',
    ]);
    // The chunked body stays chunked: its framing is written again, not dropped with the hop-by-hop headers.
    assert.deepEqual(upstreamHeaders(pairs, '10.0.0.1', [], false), [
      'Host',
      'example.com',
      'Cookie',
      'a=1',
      'X-Forwarded-For',
      '1.1.1.1, 10.0.0.1',
      'Transfer-Encoding',
      'chunked',
    ]);
  });

  it("adds the policy's headers, replacing what the client sent under the same name", () => {
    const pairs = pairsOf(['Host', 'h', 'x-user-tier', 'gold', 'X-USER-TIER', 'platinum']);
    assert.deepEqual(upstreamHeaders(pairs, '10.0.0.1', [{ name: 'X-User-Tier', value: 'checked' }], false), [
      'Host',
      'h',
      'X-Forwarded-For',
      '10.0.0.1',
      'X-User-Tier',
      'checked',
    ]);
  });

  it('keeps the Host a Connection header names: the Host decided on is the Host forwarded', () => {
    const pairs = pairsOf(['Host', 'public.local', 'Connection', 'keep-alive, Host, X-A', 'X-A', '1']);
    assert.deepEqual(upstreamHeaders(pairs, '10.0.0.1', [], false), ['Host', 'public.local', 'X-Forwarded-For', '10.0.0.1']);
  });

  it('keeps Connection: Upgrade and Upgrade for a WebSocket handshake', () => {
    const pairs = pairsOf(['Host', 'h', 'Connection', 'Upgrade', 'Upgrade', 'websocket', 'Sec-WebSocket-Key', 'k']);
    assert.deepEqual(upstreamHeaders(pairs, '10.0.0.1', [], true), [
      'Host',
      'h',
      'Sec-WebSocket-Key',
      'k',
      'X-Forwarded-For',
      '10.0.0.1',
      'Connection',
      'Upgrade',
      'Upgrade',
      'websocket',
    ]);
  });

  it('drops hop-by-hop headers from the answer', () => {
    assert.deepEqual(
      downstreamHeaders([
        'Content-Type',
        'text/plain',
        'Connection',
        'close, X-Internal',
        'X-Internal',
        '1',
        'Transfer-Encoding',
        'chunked',
        'Set-Cookie',
        'a=1',
        'Set-Cookie',
        'b=2',
      ]),
      ['Content-Type', 'text/plain', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2'],
    );
  });
});
