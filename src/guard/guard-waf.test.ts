/**
 * The guard enforcing preconfigured WAF rules on real traffic: the engine inspects the request
 * line, headers and the first bytes of the body (the guard buffers the policy's inspection limit
 * of a body, and no more, before deciding), a match is Cloud Armor's 403 with the signature in the
 * log line, and what is allowed reaches the upstream byte for byte, the buffered start and the
 * rest alike.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type InlineGuard, type RecordingUpstream, startInlineGuard, startRecordingUpstream } from './testing/inline-guard.ts';

const POLICY = {
  name: 'waf',
  rules: [
    { priority: 1000, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})" } } },
    { priority: 1001, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})" } } },
    { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
  ],
};

let upstream: RecordingUpstream;
let guard: InlineGuard;
before(async () => {
  upstream = await startRecordingUpstream();
  guard = await startInlineGuard({ policy: POLICY, upstream: upstream.url });
});
after(async () => {
  await guard.close();
  await upstream.close();
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | Buffer[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: guard.port, method, path, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    outgoing.on('error', reject);
    if (Array.isArray(body)) for (const piece of body) outgoing.write(piece);
    else if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const lastExchange = () => guard.exchanges.at(-1);
const waitForExchanges = async (count: number): Promise<void> => {
  while (guard.exchanges.length < count) await new Promise((resolve) => setImmediate(resolve));
};

describe('the guard with preconfigured WAF rules', () => {
  test('a SQL injection in the query is denied with the signature in the log, and never reaches the upstream', async () => {
    const before = upstream.arrivals.length;
    const answer = await send('GET', '/search?id=1%27%20or%20%271%27%3D%271', {});
    assert.equal(answer.status, 403);
    assert.match(answer.body, /403 Forbidden$/);
    await waitForExchanges(1);
    assert.deepEqual(lastExchange()?.enforced?.['preconfiguredExprIds'], ['owasp-crs-v030301-id942100-sqli']);
    assert.equal(lastExchange()?.statusDetails, 'denied_by_security_policy');
    assert.equal(upstream.arrivals.length, before);
  });

  test('an XSS in a cookie is denied by the second rule', async () => {
    const count = guard.exchanges.length;
    const answer = await send('GET', '/', { cookie: 'q=<script>alert(1)</script>' });
    assert.equal(answer.status, 403);
    await waitForExchanges(count + 1);
    assert.equal(lastExchange()?.enforced?.['priority'], 1001);
  });

  test('a clean request is forwarded', async () => {
    const answer = await send('GET', '/search?q=red+shoes', { 'user-agent': 'Mozilla/5.0' });
    assert.equal(answer.status, 200);
  });

  test('an injection in a form body is denied in the body phase', async () => {
    const count = guard.exchanges.length;
    const body = Buffer.from("name=a&q=1' or '1'='1");
    const answer = await send('POST', '/form', { ...FORM, 'content-length': String(body.length) }, body);
    assert.equal(answer.status, 403);
    await waitForExchanges(count + 1);
    assert.equal(lastExchange()?.statusDetails, 'body_denied_by_security_policy');
  });

  test('a clean body longer than the inspection limit reaches the upstream whole, sent as chunks', async () => {
    const pieces = Array.from({ length: 20 }, (_, i) => Buffer.from(`${i === 0 ? '' : '&'}f${i}=${'x'.repeat(1000)}`));
    const answer = await send('POST', '/upload', { ...FORM, 'transfer-encoding': 'chunked' }, pieces);
    assert.equal(answer.status, 200);
    const arrival = upstream.arrivals.at(-1);
    assert.equal(arrival?.url, '/upload');
    assert.ok(Buffer.concat(arrival?.body ?? []).equals(Buffer.concat(pieces)));
  });

  test('an injection past the first 8 KB is judged on the first bytes: forwarded, whole', async () => {
    const body = Buffer.from(`pad=${'a'.repeat(9000)}&q=1' or '1'='1`);
    const answer = await send('POST', '/late', { ...FORM, 'content-length': String(body.length) }, body);
    assert.equal(answer.status, 200);
    assert.ok(Buffer.concat(upstream.arrivals.at(-1)?.body ?? []).equals(body));
  });

  test('hostile bodies (ReDoS-shaped, deep JSON, a huge multipart) are answered', async () => {
    const hostile = [
      { type: 'application/x-www-form-urlencoded', body: Buffer.from(`a=${"'".repeat(4000)}${'('.repeat(4000)}${'/*'.repeat(10000)}`) },
      { type: 'application/json', body: Buffer.from(`${'['.repeat(50000)}${']'.repeat(50000)}`) },
      {
        type: 'multipart/form-data; boundary=x',
        body: Buffer.from(
          Array.from({ length: 3000 }, (_, i) => `--x\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${'v'.repeat(30)}\r\n`).join('') + '--x--\r\n',
        ),
      },
    ];
    for (const { type, body } of hostile) {
      const answer = await send('POST', '/hostile', { 'content-type': type, 'content-length': String(body.length) }, body);
      assert.ok(answer.status === 200 || answer.status === 403, `${type}: ${answer.status} ${answer.body}`);
    }
    assert.deepEqual(guard.failures, []);
  });
});
