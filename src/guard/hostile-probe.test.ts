/**
 * The hostile probe of issue 44, case by case, over raw sockets: what the guard decides is what
 * the upstream receives, framing two readers could read differently never reaches the upstream,
 * the scheme is the connection's, no policy or upstream answer can end the process, and slow
 * clients or a slow upstream cannot starve the others.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendRaw } from '../testing/raw-http.ts';
import type { GuardLimits } from './guard-server.ts';
import { type InlineGuard, type RecordingUpstream, startInlineGuard, startRecordingUpstream } from './testing/inline-guard.ts';

const everyone = { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } };
const rule = (priority: number, action: string, expression: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  priority,
  action,
  match: { expr: { expression } },
  ...extra,
});
/** POLICY denies /admin, non-https /secure and the admin.local host; it adds headers on /team and /smuggle (as a policy stored before the API refused them). */
const POLICY = {
  name: 'edge',
  rules: [
    rule(100, 'deny(403)', "request.path.startsWith('/admin')"),
    rule(110, 'deny(403)', "request.path.startsWith('/secure') && request.scheme != 'https'"),
    rule(120, 'deny(403)', "request.headers['host'] == 'admin.local'"),
    rule(200, 'allow', "request.path.startsWith('/team')", { headerAction: { requestHeadersToAdds: [{ headerName: 'X-Team', headerValue: 'café €' }] } }),
    rule(210, 'allow', "request.path.startsWith('/smuggle')", { headerAction: { requestHeadersToAdds: [{ headerName: 'Content-Length', headerValue: '0' }] } }),
    rule(220, 'allow', "request.path.startsWith('/crlf')", { headerAction: { requestHeadersToAdds: [{ headerName: 'X-A', headerValue: 'a\r\nX-Admin: 1' }] } }),
    rule(230, 'allow', "request.path.startsWith('/named')", { headerAction: { requestHeadersToAdds: [{ headerName: 'X Team', headerValue: 'v' }] } }),
    rule(240, 'allow', "request.path.startsWith('/fine-header')", { headerAction: { requestHeadersToAdds: [{ headerName: 'X-Team', headerValue: 'edge' }] } }),
    { priority: 2147483647, action: 'allow', match: everyone },
  ],
};

let upstream: RecordingUpstream;
let guard: InlineGuard;

/** probe sends one raw request tagged with a probe number and answers the reply and what reached the upstream for it. */
async function probe(head: string, body = ''): Promise<{ status: number; body: string; reached: string[] }> {
  const tag = `p${Math.random().toString(36).slice(2)}`;
  const tagged = head.replace('\r\n', `\r\nX-Probe: ${tag}\r\n`);
  const reply = await sendRaw(guard.port, `${tagged}\r\n${body}`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const reached = upstream.arrivals.filter((arrival) => arrival.headers['x-probe'] === tag).map((arrival) => arrival.url);
  return { status: reply.status, body: reply.body, reached };
}

before(async () => {
  upstream = await startRecordingUpstream();
  guard = await startInlineGuard({
    policy: POLICY,
    upstream: upstream.url,
    wrapDecide: (decide) => (request) => {
      if (request.url.endsWith('/boom')) throw new Error('a handler that throws');
      return decide(request);
    },
  });
});
after(async () => {
  await guard.close();
  await upstream.close();
});

/**
 * PATH_SPELLINGS: each target, what the guard must do, and for a forwarded one the exact target the
 * upstream must receive. `refused` is the guard's own 400, `denied` the policy's 403.
 */
const PATH_SPELLINGS: readonly (readonly [target: string, outcome: 'forwarded' | 'denied' | 'refused', upstreamTarget?: string])[] = [
  ['/admin', 'denied'],
  ['/admin/users?x=1', 'denied'],
  ['/ok', 'forwarded', '/ok'],
  ['/ok?/admin', 'forwarded', '/ok?/admin'],
  ['/x/../admin', 'refused'],
  ['/./admin', 'refused'],
  ['/%2e%2e/admin', 'refused'],
  ['/x/.%2e/admin', 'refused'],
  ['/x/%2E./admin', 'refused'],
  ['/x/%2e%2E/admin', 'refused'],
  ['/admin/../ok', 'refused'],
  ['/x\\..\\admin', 'refused'],
  ['/\\admin', 'refused'],
  ['/admin#x', 'refused'],
  ['//admin/x', 'refused'],
  ['http://h//admin', 'refused'],
  ['/ok//admin', 'forwarded', '/ok//admin'],
  ['/%61dmin', 'forwarded', '/%61dmin'],
  ['/ADMIN', 'forwarded', '/ADMIN'],
  ['/a..b/.well-known', 'forwarded', '/a..b/.well-known'],
  ['http://h/admin', 'denied'],
  ['http://h/ok', 'forwarded', '/ok'],
  ['HTTP://h/ok?q=1', 'forwarded', '/ok?q=1'],
  ['http://h', 'forwarded', '/'],
  ['http://h/x/../admin', 'refused'],
  ['http://h/./admin', 'refused'],
  ['http://h/x/%2e%2e/admin', 'refused'],
  ['http://h/x/.%2e/admin', 'refused'],
  ['http://h/admin/../ok', 'refused'],
  ['http://h/x\\..\\admin', 'refused'],
  ['http://h\\admin', 'refused'],
  ['http://h/a"b', 'refused'],
  ['http://user@h/ok', 'refused'],
];

describe('one request target: decided and forwarded the same (issue 44, 1)', () => {
  for (const [target, outcome, upstreamTarget] of PATH_SPELLINGS) {
    it(`${target} is ${outcome}${upstreamTarget === undefined ? '' : ` as ${upstreamTarget}`}`, async () => {
      const got = await probe(`GET ${target} HTTP/1.1\r\nHost: public.local\r\n`);
      const expected = outcome === 'forwarded' ? 200 : outcome === 'denied' ? 403 : 400;
      assert.equal(got.status, expected, got.body);
      assert.deepEqual(got.reached, upstreamTarget === undefined ? [] : [upstreamTarget]);
      if (outcome === 'refused') assert.match(got.body, /^guard: /);
    });
  }

  it('refuses a WebSocket handshake whose target resolves to another path, and never opens it', async () => {
    const got = await probe('GET http://h/x/../admin HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n');
    assert.equal(got.status, 400);
    assert.match(got.body, /dot segment/);
    assert.deepEqual(got.reached, []);
    const allowed = await probe('GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n');
    assert.equal(allowed.status, 101);
    assert.deepEqual(allowed.reached, ['/ws']);
  });

  it('answers CONNECT and OPTIONS * with its own 400, forwarding nothing', async () => {
    const tunnel = await sendRaw(guard.port, 'CONNECT admin.local:443 HTTP/1.1\r\nHost: admin.local:443\r\n\r\n');
    assert.equal(tunnel.status, 400);
    assert.match(tunnel.body, /^guard: CONNECT is not proxied/);
    const star = await probe('OPTIONS * HTTP/1.1\r\nHost: h\r\n');
    assert.equal(star.status, 400);
    assert.deepEqual(star.reached, []);
  });

  it('takes the Host of an absolute-form target from its authority, for the policy and the upstream', async () => {
    const denied = await probe('GET http://admin.local/x HTTP/1.1\r\nHost: public.local\r\n');
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.reached, []);
    const before = upstream.arrivals.length;
    assert.equal((await probe('GET http://other.local/x HTTP/1.1\r\nHost: public.local\r\n')).status, 200);
    assert.equal(upstream.arrivals[before]?.headers.host, 'other.local');
  });
});

describe('strict framing (issue 44, 4)', () => {
  const refused: readonly (readonly [string, string, string?])[] = [
    ['two Host lines', 'GET /x HTTP/1.1\r\nHost: public.local\r\nHost: admin.local\r\n'],
    ['a duplicate Content-Length', 'POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n', 'ab'],
    ['conflicting Content-Lengths', 'POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 5\r\n', 'abcde'],
    ['a listed Content-Length', 'POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n', 'ab'],
    ['Transfer-Encoding with Content-Length', 'POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n'],
    ['a Transfer-Encoding not ending in chunked', 'POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n', 'abc'],
    ['an obs-fold continuation', 'GET /x HTTP/1.1\r\nHost: h\r\nX-A: a\r\n folded\r\n'],
    ['an obs-folded Host', 'GET /x HTTP/1.1\r\nHost: public.local\r\n admin.local\r\n'],
  ];
  for (const [name, head, body] of refused) {
    it(`answers 400 to ${name} and forwards nothing`, async () => {
      const got = await probe(head, body);
      assert.equal(got.status, 400, got.body);
      assert.match(got.body, /^guard: /);
      assert.deepEqual(got.reached, []);
    });
  }

  const inner = 'GET /admin HTTP/1.1\r\nHost: h\r\n\r\n';
  for (const [name, head, body] of [
    ['a GET with a chunked body', 'GET /ok HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n', `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`],
    [
      'a DELETE with a chunked body',
      'DELETE /ok HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n',
      `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`,
    ],
    [
      'a GET whose Connection names its Content-Length',
      `GET /ok HTTP/1.1\r\nHost: h\r\nContent-Length: ${inner.length}\r\nConnection: content-length\r\n`,
      inner,
    ],
  ] as const) {
    it(`forwards ${name} framed, so no request hidden in it reaches the upstream`, async () => {
      const admin = (): number => upstream.arrivals.filter((arrival) => arrival.url === '/admin').length;
      const before = admin();
      const got = await probe(head, body);
      assert.equal(got.status, 200, got.body);
      assert.deepEqual(got.reached, ['/ok']);
      assert.equal(admin(), before);
    });
  }

  it('takes the scheme from the connection, not the request line: https://h/secure on plain HTTP is denied', async () => {
    const got = await probe('GET https://h/secure HTTP/1.1\r\nHost: h\r\n');
    assert.equal(got.status, 403);
    assert.deepEqual(got.reached, []);
    assert.equal((await probe('GET https://h/ok HTTP/1.1\r\nHost: h\r\n')).status, 200);
  });

  it('answers an upstream status line it cannot write back (099) and an upstream header it cannot read with its own 502, and keeps serving', async () => {
    for (const path of ['/status099', '/bad-header']) {
      const got = await probe(`GET ${path} HTTP/1.1\r\nHost: h\r\n`);
      assert.equal(got.status, 502, got.body);
      assert.match(got.body, /^guard: the upstream http:\/\/127\.0\.0\.1:\d+ answered what cannot be (relayed|read)/);
    }
    assert.equal((await probe('GET /ok HTTP/1.1\r\nHost: h\r\n')).status, 200);
  });
});

describe('header actions that cannot be written, and handlers that throw (issue 44, 2 and 7)', () => {
  for (const [path, what] of [
    ['/team', 'a value outside ASCII'],
    ['/crlf', 'a value with CR LF'],
    ['/named', 'a name with a space'],
    ['/smuggle', 'a framing header (Content-Length: 0) that would hide a request in the body'],
  ] as const) {
    it(`answers 502 naming the rule for ${what}, forwards nothing, and serves everything else`, async () => {
      const smuggled = 'GET /admin HTTP/1.1\r\nHost: h\r\n\r\n';
      const got = await probe(`POST ${path} HTTP/1.1\r\nHost: h\r\nContent-Length: ${smuggled.length}\r\n`, smuggled);
      assert.equal(got.status, 502);
      assert.match(got.body, /^guard: the rule at priority \d+ cannot be enforced: its header action adds /);
      assert.deepEqual(got.reached, []);
      assert.equal(upstream.arrivals.filter((arrival) => arrival.url === '/admin').length, 0);
      const logged = guard.exchanges.findLast((exchange) => exchange.target === path);
      assert.equal(logged?.statusDetails, 'rule_unenforceable_by_guard');
      assert.equal(logged?.status, 502);
      assert.equal((await probe('GET /ok HTTP/1.1\r\nHost: h\r\n')).status, 200);
    });
  }

  it('forwards a header action it can write', async () => {
    const before = upstream.arrivals.length;
    assert.equal((await probe('GET /fine-header HTTP/1.1\r\nHost: h\r\n')).status, 200);
    assert.equal(upstream.arrivals[before]?.headers['x-team'], 'edge');
  });

  it('answers 502 when handling a request throws, and goes on serving', async () => {
    const failuresBefore = guard.failures.length;
    const got = await probe('GET /boom HTTP/1.1\r\nHost: h\r\n');
    assert.equal(got.status, 502);
    assert.equal(got.body, 'guard: the request could not be handled (a handler that throws)\n');
    assert.equal(guard.failures.length, failuresBefore + 1);
    const upgrade = await probe('GET /boom HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n');
    assert.equal(upgrade.status, 502);
    assert.equal((await probe('GET /ok HTTP/1.1\r\nHost: h\r\n')).status, 200);
  });

  it('answers 502 when a decision carries headers node cannot write (a policy the enforcer did not screen)', async () => {
    const raw = await startInlineGuard({
      policy: POLICY,
      upstream: upstream.url,
      wrapDecide: (decide) => (request) => {
        const verdict = decide(request);
        if (!('decision' in verdict)) return verdict;
        return { decision: { ...verdict.decision, headersToAdd: [{ name: 'X-Bad', value: 'a\r\nb' }] } };
      },
    });
    try {
      const reply = await sendRaw(raw.port, 'GET /ok HTTP/1.1\r\nHost: h\r\n\r\n');
      assert.equal(reply.status, 502);
      assert.match(reply.body, /^guard: the request cannot be forwarded with the policy's headers \(ERR_INVALID_CHAR\)/);
    } finally {
      await raw.close();
    }
  });
});

/** hold opens a connection, writes `text`, and keeps it open until released. */
function hold(port: number, text: string): Promise<{ socket: Socket; seen: () => string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let seen = '';
    socket.on('data', (data: Buffer) => (seen += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(text);
      resolve({ socket, seen: () => seen });
    });
    socket.once('error', reject);
  });
}

/** until polls until `probe` holds (bounded). */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`never happened: ${what}`);
}

describe('no starvation (issue 44, 3)', () => {
  const limits: GuardLimits = { bodyTimeoutMs: 300, upstreamTimeoutMs: 400, concurrency: 3, queue: 2 };
  let small: InlineGuard;
  let queued: InlineGuard;
  before(async () => {
    small = await startInlineGuard({ policy: POLICY, upstream: upstream.url, limits });
    queued = await startInlineGuard({ policy: POLICY, upstream: upstream.url, limits: { ...limits, upstreamTimeoutMs: 60_000 } });
  });
  after(async () => {
    await small.close();
    await queued.close();
  });

  it('answers 408 in its own line to a body that does not arrive in time, and forwards what it had', async () => {
    const reply = await sendRaw(small.port, 'POST /slow-body HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc');
    assert.equal(reply.status, 408);
    assert.equal(reply.body, 'guard: the request body did not arrive within 0.3 s\n');
    assert.equal(small.exchanges.findLast((exchange) => exchange.target === '/slow-body')?.statusDetails, 'request_body_timeout');
  });

  it('answers 504 in its own line when the upstream does not begin its answer in time', async () => {
    const reply = await sendRaw(small.port, 'GET /hang HTTP/1.1\r\nHost: h\r\n\r\n');
    assert.equal(reply.status, 504);
    assert.match(reply.body, /^guard: the upstream http:\/\/127\.0\.0\.1:\d+ did not answer within 0\.4 s\n$/);
  });

  it('answers 503 in its own line when the queue is full, instead of letting a request wait with no answer', async () => {
    const hanging = (): number => upstream.arrivals.filter((arrival) => arrival.url === '/hang').length;
    const before = hanging();
    const held = await Promise.all([1, 2, 3, 4, 5].map(() => hold(queued.port, 'GET /hang HTTP/1.1\r\nHost: h\r\n\r\n')));
    try {
      await until('the upstream holds three', () => hanging() === before + 3);
      const reply = await sendRaw(queued.port, 'GET /ok HTTP/1.1\r\nHost: h\r\n\r\n');
      assert.equal(reply.status, 503);
      assert.equal(reply.body, 'guard: 3 requests are waiting on the upstream and 2 more for their turn; try again later\n');
    } finally {
      for (const { socket } of held) socket.destroy();
    }
  });

  it('lets streamed answers (event streams) run without holding a place: an allowed GET still gets through', async () => {
    const streams = await Promise.all([1, 2, 3, 4, 5, 6].map(() => hold(queued.port, 'GET /stream HTTP/1.1\r\nHost: h\r\n\r\n')));
    try {
      await until('six streams open', () => streams.every(({ seen }) => seen().includes('data: open')));
      const reply = await sendRaw(queued.port, 'GET /ok HTTP/1.1\r\nHost: h\r\n\r\n');
      assert.equal(reply.status, 200);
    } finally {
      for (const { socket } of streams) socket.destroy();
    }
  });
});
