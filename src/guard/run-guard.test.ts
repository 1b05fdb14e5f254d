import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';
import { type RunningGuard, startGuardProcess } from './run-guard.ts';

const COMPUTE = '/compute/v1/projects/p/regions/us-central1/securityPolicies';
const POLICY = 'projects/p/regions/us-central1/securityPolicies/edge';

let fb: RunningFogbank;
let upstream: Server;
let upstreamUrl: string;
let guard: RunningGuard;
const stdout: string[] = [];
const stderr: string[] = [];

async function compute(method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${fb.url}${COMPUTE}${path}`, {
    method,
    headers: { authorization: `Bearer ${fb.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await response.text();
  return response.status;
}

/** through sends one request through the guard. */
async function through(path: string, init: RequestInit = {}): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(`${guard.url}${path}`, { ...init, redirect: 'manual' });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** eventually polls `probe` until it holds (bounded: a broken follow fails, never hangs). */
async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`never happened: ${what}`);
}

before(async () => {
  fb = await startFogbank({ operations: 'instant' });
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.setHeader('connection', 'keep-alive, x-hop');
      response.setHeader('x-hop', 'dropped');
      response.end(JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  upstream.on('upgrade', (request, socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${request.headers.upgrade}\r\nConnection: Upgrade\r\n\r\n`);
    socket.on('data', (data: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), data])));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  assert.equal(await compute('POST', '', { name: 'edge' }), 200);
  assert.equal(
    await compute('POST', '/edge/addRule', { priority: 1000, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin')" } } }),
    200,
  );
  const unicode = "has(request.headers['cookie']) && request.headers['cookie'].utf8ToUnicode() == 'q=%u00ac%u1f600'";
  assert.equal(await compute('POST', '/edge/addRule', { priority: 500, action: 'deny(404)', match: { expr: { expression: unicode } } }), 200);
  const throttle = {
    priority: 2000,
    action: 'throttle',
    match: { expr: { expression: "request.path.startsWith('/api')" } },
    rateLimitOptions: {
      rateLimitThreshold: { count: 2, intervalSec: 60 },
      conformAction: 'allow',
      exceedAction: 'deny(429)',
      enforceOnKey: 'HTTP_HEADER',
      enforceOnKeyName: 'X-API-Key',
    },
  };
  assert.equal(await compute('POST', '/edge/addRule', throttle), 200);
  guard = await startGuardProcess(
    {
      policy: POLICY,
      upstream: new URL(upstreamUrl),
      host: '127.0.0.1',
      port: 0,
      trustedProxies: 0,
      url: fb.url,
      token: fb.adminToken,
      wafUnknown: 'no-match',
    },
    { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
  );
});
after(async () => {
  await guard?.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  await fb.close();
});

describe('fogbank guard, in process', () => {
  it('prints its address first, then enforces the policy: 403 with Cloud Armor’s page, 200 forwarded, 429 over the rate', async () => {
    assert.match(stdout[0]!, /^guard listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const denied = await through('/admin/users');
    assert.equal(denied.status, 403);
    assert.equal(denied.headers.get('content-type'), 'text/html; charset=UTF-8');
    assert.equal(
      denied.body,
      '<!doctype html><meta charset="utf-8"><meta name=viewport content="width=device-width, initial-scale=1"><title>403</title>403 Forbidden',
    );
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await through('/api/items', { headers: { 'x-api-key': 'k1' } })).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    // Another key has a bucket of its own.
    assert.equal((await through('/api/items', { headers: { 'x-api-key': 'k2' } })).status, 200);
  });

  it('forwards method, path, query and body, drops hop-by-hop headers both ways and appends X-Forwarded-For', async () => {
    const got = await through('/echo?q=1', {
      method: 'POST',
      body: 'hello body',
      headers: { 'x-forwarded-for': '198.51.100.7', 'proxy-authorization': 'secret' },
    });
    assert.equal(got.status, 200);
    const echoed = JSON.parse(got.body) as { method: string; url: string; headers: Record<string, string>; body: string };
    assert.deepEqual([echoed.method, echoed.url, echoed.body], ['POST', '/echo?q=1', 'hello body']);
    assert.equal(echoed.headers['x-forwarded-for'], '198.51.100.7, 127.0.0.1');
    assert.equal(echoed.headers['proxy-authorization'], undefined);
    assert.equal(got.headers.get('x-hop'), null);
  });

  it('passes a WebSocket-style upgrade through, and blocks a denied one', async () => {
    const port = Number(new URL(guard.url).port);
    const exchange = (path: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let seen = '';
        socket.on('data', (data: Buffer) => {
          seen += data.toString('utf8');
          if (seen.includes('\r\n\r\n') && seen.startsWith('HTTP/1.1 101') && !seen.includes('echo:')) socket.write('ping');
          if (seen.includes('echo:ping') || (seen.includes('\r\n\r\n') && !seen.startsWith('HTTP/1.1 101'))) {
            socket.destroy();
            resolve(seen);
          }
        });
        socket.on('end', () => resolve(seen));
        socket.on('error', reject);
        socket.write(`GET ${path} HTTP/1.1\r\nHost: example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
      });
    const open = await exchange('/socket');
    assert.match(open, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    assert.match(open, /echo:ping$/);
    const blocked = await exchange('/admin/socket');
    assert.match(blocked, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(blocked, /403 Forbidden$/);
  });

  it('reads header bytes as UTF-8, so utf8ToUnicode() decides as the what-if API does for the same text', async () => {
    const port = Number(new URL(guard.url).port);
    const statusOf = (cookie: Buffer): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let seen = '';
        socket.on('data', (data: Buffer) => (seen += data.toString('latin1')));
        socket.on('close', () => resolve(seen.slice(0, 12)));
        socket.on('error', reject);
        // Written, not ended: the guard answers an allowed request after the upstream does, then closes (Connection: close).
        socket.write(Buffer.concat([Buffer.from('GET /page HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nCookie: '), cookie, Buffer.from('\r\n\r\n')]));
      });
    // The UTF-8 bytes of "q=¬😀" match; the same characters in Latin-1 bytes are not UTF-8 and do not.
    assert.equal(await statusOf(Buffer.from('q=¬😀', 'utf8')), 'HTTP/1.1 404');
    assert.equal(await statusOf(Buffer.from('q=\u00ac', 'latin1')), 'HTTP/1.1 200');
    const response = await fetch(`${fb.url}/_fogbank/securityPolicies:evaluate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fb.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy: POLICY, requests: [{ url: 'http://example.com/page', sourceIp: '127.0.0.1', headers: { cookie: 'q=¬😀' } }] }),
    });
    const whatIf = (await response.json()) as { results: { enforcedSecurityPolicy: { priority: number } }[] };
    assert.equal(whatIf.results[0]?.enforcedSecurityPolicy.priority, 500);
  });

  it('answers 400 to a request it cannot read, and keeps serving', async () => {
    const port = Number(new URL(guard.url).port);
    const raw = (text: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let seen = '';
        socket.on('data', (data: Buffer) => (seen += data.toString('latin1')));
        socket.on('end', () => resolve(seen));
        socket.on('close', () => resolve(seen));
        socket.on('error', reject);
        socket.end(text);
      });
    assert.match(await raw('GARBAGE\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*guard: the request cannot be read \(HPE_INVALID_METHOD\)\n$/);
    assert.match(await raw('GET /x HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*guard: the request has no Host, so '\/x' is no URL\n$/);
    assert.equal((await through('/fine')).status, 200);
  });

  it('logs every decision as a request-log line with the rule priority, and journals it in fogbank as family guard', async () => {
    await through('/admin/log-me');
    await eventually('the decision line', async () => stdout.join('').includes('/admin/log-me'));
    const line = stdout
      .join('')
      .split('\n')
      .find((text) => text.includes('/admin/log-me'))!;
    const entry = JSON.parse(line) as { httpRequest: Record<string, unknown>; jsonPayload: Record<string, unknown> };
    assert.deepEqual(entry.jsonPayload['enforcedSecurityPolicy'], { name: 'edge', priority: 1000, configuredAction: 'DENY', outcome: 'DENY' });
    assert.equal(entry.jsonPayload['statusDetails'], 'denied_by_security_policy');
    assert.deepEqual(entry.jsonPayload['securityPolicyRequestData'], { remoteIpInfo: { ipAddress: '127.0.0.1' } });
    assert.deepEqual(
      [entry.httpRequest['requestMethod'], entry.httpRequest['requestUrl'], entry.httpRequest['status'], entry.httpRequest['remoteIp']],
      ['GET', `${guard.url}/admin/log-me`, 403, '127.0.0.1'],
    );
    assert.match(String(entry.httpRequest['latency']), /^\d+\.\d{6}s$/);
    const journaled = async (): Promise<{ path: string; status: number; jsonPayload: { enforcedSecurityPolicy: { priority: number } } }[]> =>
      (
        (await (await fetch(`${fb.url}/_fogbank/requests?family=guard`, { headers: { authorization: `Bearer ${fb.adminToken}` } })).json()) as {
          requests: never[];
        }
      ).requests;
    await eventually('the journal entry', async () => (await journaled()).some((each) => each.path === '/admin/log-me'));
    const found = (await journaled()).find((each) => each.path === '/admin/log-me')!;
    assert.deepEqual([found.status, found.jsonPayload.enforcedSecurityPolicy.priority], [403, 1000]);
  });

  it('follows a rule change without restart', async () => {
    assert.equal((await through('/admin/flip')).status, 403);
    assert.equal(await compute('POST', '/edge/patchRule?priority=1000', { action: 'allow' }), 200);
    await eventually('the rule change to reach the guard', async () => (await through('/admin/flip')).status === 200);
  });

  it('answers 502 with a clear line while the policy is deleted, and recovers when it returns', async () => {
    assert.equal(await compute('DELETE', '/edge'), 200);
    await eventually('the deletion to reach the guard', async () => (await through('/')).status === 502);
    assert.equal(
      (await through('/')).body,
      'guard: the security policy projects/p/regions/us-central1/securityPolicies/edge does not exist (deleted?); waiting for it to return\n',
    );
    assert.equal(
      await compute('POST', '', {
        name: 'edge',
        rules: [{ priority: 7, action: 'deny(404)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } }],
      }),
      200,
    );
    await eventually('the policy to return', async () => (await through('/')).status === 404);
    assert.match(
      stderr.join(''),
      /guard: the security policy projects\/p\/regions\/us-central1\/securityPolicies\/edge does not exist; answering 502 until it does\n/,
    );
  });

  it('enforces a policy stored before the API refused its header action: that rule answers 502 with the reason, all else is served', async () => {
    const created = await fetch(`${fb.url}/compute/v1/projects/p/global/securityPolicies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fb.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'stored',
        rules: [
          {
            priority: 500,
            action: 'allow',
            match: { expr: { expression: "request.path.startsWith('/team')" } },
            headerAction: { requestHeadersToAdds: [{ headerName: 'X-Team', headerValue: 'ok' }] },
          },
        ],
      }),
    });
    assert.equal(created.status, 200, await created.text());
    // What an older fogbank let through: the value the API now refuses, written into the store as
    // it was then (the guard, above the families, knows compute's record only as the store holds it).
    const kind = 'compute.securityPolicies';
    const record = await fb.store.get<{ rules: { priority: number }[] }>(kind, 'p/global/stored');
    assert.ok(record !== undefined);
    const rules = record.value.rules.map((rule) =>
      rule.priority === 500 ? { ...rule, headerAction: { requestHeadersToAdds: [{ headerName: 'X-Team', headerValue: 'café €' }] } } : rule,
    );
    await fb.store.transact((tx) => tx.put(kind, record.key, { ...record.value, rules }));
    const lines: string[] = [];
    const stored = await startGuardProcess(
      {
        policy: 'projects/p/global/securityPolicies/stored',
        upstream: new URL(upstreamUrl),
        host: '127.0.0.1',
        port: 0,
        trustedProxies: 0,
        url: fb.url,
        token: fb.adminToken,
        wafUnknown: 'no-match',
      },
      { stdout: () => undefined, stderr: (text) => lines.push(text) },
    );
    try {
      const team = await fetch(`${stored.url}/team`);
      assert.equal(team.status, 502);
      assert.match(
        await team.text(),
        /^guard: the rule at priority 500 cannot be enforced: its header action adds "X-Team": "café €", which cannot be written/,
      );
      assert.equal((await fetch(`${stored.url}/elsewhere`)).status, 200);
      assert.match(lines.join(''), /guard: the rule at priority 500 cannot be enforced: .*; the requests it forwards are answered 502\n/);
    } finally {
      await stored.close();
    }
  });

  it('answers 502 naming the upstream when the upstream is down', async () => {
    const down = await startGuardProcess(
      {
        policy: POLICY,
        upstream: new URL('http://127.0.0.1:1'),
        host: '127.0.0.1',
        port: 0,
        trustedProxies: 0,
        url: fb.url,
        token: fb.adminToken,
        wafUnknown: 'no-match',
      },
      { stdout: () => undefined, stderr: () => undefined },
    );
    try {
      await compute('POST', '/edge/patchRule?priority=7', { action: 'allow' });
      await eventually('the allow to reach the second guard', async () => (await fetch(`${down.url}/`)).status === 502);
      assert.equal(await (await fetch(`${down.url}/`)).text(), 'guard: the upstream http://127.0.0.1:1 cannot be reached (ECONNREFUSED)\n');
    } finally {
      await down.close();
    }
  });

  it('refuses to start with a policy name fogbank cannot read, or a token it refuses', async () => {
    const config = {
      policy: 'projects/p/regions/us-central1/securityPolicies/UPPER',
      upstream: new URL(upstreamUrl),
      host: '127.0.0.1',
      port: 0,
      trustedProxies: 0,
      url: fb.url,
      token: fb.adminToken,
      wafUnknown: 'no-match',
    } as const;
    const output = { stdout: () => undefined, stderr: () => undefined };
    await assert.rejects(startGuardProcess(config, output), {
      name: 'GuardStartError',
      message:
        'fogbank refused to stream projects/p/regions/us-central1/securityPolicies/UPPER: "policy": "projects/p/regions/us-central1/securityPolicies/UPPER" is not a security policy name such as projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.',
      exitCode: 2,
    });
    await assert.rejects(startGuardProcess({ ...config, policy: POLICY, token: 'nope' }, output), {
      message: 'fogbank refused to stream projects/p/regions/us-central1/securityPolicies/edge: The token is not one this server issued.',
      exitCode: 1,
    });
  });

  it('keeps the last policy when fogbank goes away, and says so once', async () => {
    const before = (await through('/')).status;
    await fb.close();
    await eventually('the loss to be noticed', async () => stderr.join('').includes('keeping the last policy and reconnecting'));
    assert.equal((await through('/')).status, before);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(stderr.join('').split('keeping the last policy and reconnecting').length - 1, 1);
  });

  it('reconnects when fogbank is back, and enforces the policy it finds there', async () => {
    const port = Number(new URL(fb.url).port);
    fb = await startFogbank({ operations: 'instant', port, adminToken: fb.adminToken });
    assert.equal(
      await compute('POST', '', {
        name: 'edge',
        rules: [{ priority: 3, action: 'deny(502)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } }],
      }),
      200,
    );
    await eventually(
      'the guard to follow the new server',
      async () => (await through('/')).status === 502 && (await through('/')).body.includes('<title>502</title>'),
    );
    assert.match(stderr.join(''), /guard: following projects\/p\/regions\/us-central1\/securityPolicies\/edge again\n/);
  });
});
