import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression } from './compile-expression.ts';
import { viewRequest } from './request-view.ts';
import type { TrafficRequest } from './traffic-request.ts';

/** EXPRESSIONS the fast closures cover, with errors (missing headers, bad addresses) and CEL's && / || error absorption. */
const COVERED = [
  "request.path.startsWith('/admin')",
  "request.path.endsWith('.php') || request.query.contains('debug')",
  "origin.region_code == 'FR'",
  "origin.region_code != 'FR' && request.method == 'POST'",
  "inIpRange(origin.ip, '10.0.0.0/8')",
  "inIpRange(origin.ip, '2001:db8::/32')",
  "!inIpRange(origin.ip, '192.0.2.0/24') && request.path.startsWith('/admin')",
  "inIpRange(origin.user_ip, '198.51.100.0/24')",
  "inIpRange(request.headers['x-client-ip'], '198.51.100.0/24')",
  "request.headers['x-api-key'] == 'k1'",
  "request.headers['user-agent'].lower().contains('bot')",
  "request.headers['user-agent'].upper().startsWith('CURL')",
  "has(request.headers['x-api-key']) && request.headers['x-api-key'].lower().contains('bad')",
  "request.path.startsWith('/blocked') || (has(request.headers['x-k']) && request.headers['x-k'].lower().contains('bad'))",
  "request.headers['missing'] == 'x' || request.path == '/admin'",
  "request.headers['missing'] == 'x' && request.path == '/nope'",
  "request.headers['missing'] == 'x' || request.path == '/nope'",
  "request.scheme == 'https' && origin.tls_ja3_fingerprint == '' && origin.tls_ja4_fingerprint == ''",
  'true && !false',
];

/** NOT_COVERED stay with the CEL runtime alone. */
const NOT_COVERED = [
  "request.path.matches('^/admin')",
  "inIpRange(origin.ip, '*')",
  "inIpRange(origin.ip, 'not-a-range')",
  'origin.asn == 64500',
  "origin.region_code == 'Q' + 'B'",
  'size(request.path) > 3',
  "evaluatePreconfiguredWaf('sqli-v33-stable')",
];

const REQUESTS: TrafficRequest[] = [
  { method: 'GET', url: 'https://example.com/admin?debug=1', headers: { 'user-agent': 'curl/8', 'x-api-key': 'k1' }, sourceIp: '10.1.2.3', regionCode: 'FR' },
  { method: 'POST', url: 'http://example.com/index.php', headers: { 'user-agent': 'Googlebot', 'x-k': 'BAD one' }, sourceIp: '2001:db8::1' },
  {
    method: 'GET',
    url: 'https://example.com/blocked/x',
    headers: { 'x-client-ip': '198.51.100.7', 'x-api-key': 'Bad' },
    sourceIp: '::ffff:192.0.2.9',
    regionCode: 'QB',
  },
  { method: 'GET', url: 'https://example.com/', headers: { 'x-client-ip': 'nonsense' }, sourceIp: '203.0.113.5' },
];

describe('expressions compiled to plain closures', () => {
  it('cover the common shapes and agree with the CEL runtime, deferring to it on every run-time error', () => {
    let errors = 0;
    for (const text of COVERED) {
      const expression = compileExpression(text);
      assert.notEqual(expression.fast, undefined, `${text}: compiled to a closure`);
      for (const request of REQUESTS) {
        const view = viewRequest(request, ['x-client-ip']);
        const fast = expression.fast?.(view);
        const cel = expression.evaluate(view.bindings());
        if ('error' in cel) {
          errors++;
          assert.equal(fast, undefined, `${text} on ${request.url}: an error is left to the CEL runtime (${cel.error})`);
        } else assert.equal(fast, cel.value, `${text} on ${request.url}`);
      }
    }
    assert.ok(errors > 0, 'the matrix exercises run-time errors');
  });

  it('leave other shapes to the CEL runtime', () => {
    for (const text of NOT_COVERED) assert.equal(compileExpression(text).fast, undefined, text);
  });
});
