import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.ts';
import { type RunningFogbank, startFogbank } from '../../testing/fogbank.ts';
import { jsonCaller } from '../../testing/json-call.ts';

const TOKENS = [{ token: 'alice-token', email: 'alice@example.com', scopes: ['*'], permissions: ['*'] }];

let fb: RunningFogbank;
let admin: Record<string, string>;

before(async () => {
  fb = await startFogbank({ clock: new ManualClock(Date.UTC(2026, 0, 1)), tokens: TOKENS, operations: 'realistic', eventTtlSeconds: 3600 });
  admin = { authorization: `Bearer ${fb.adminToken}` };
});
after(() => fb.close());

const call = jsonCaller(
  () => fb.url,
  () => admin,
);

function controlError(code: number, status: string, message: string): unknown {
  return { error: { code, status, message } };
}

describe('admin API: who may call it', () => {
  it('answers 401 without a token, on known and unknown paths alike', async () => {
    for (const path of ['/_fogbank/clock', '/_fogbank/requests', '/_fogbank/nothing-here']) {
      const got = await call('GET', path, undefined, {});
      assert.equal(got.status, 401);
      assert.deepEqual(got.body, controlError(401, 'UNAUTHENTICATED', 'The admin API needs the admin token: send Authorization: Bearer <admin token>.'));
    }
  });

  it('answers 401 to a token nobody issued and 403 to a non-admin principal', async () => {
    assert.deepEqual(
      (await call('GET', '/_fogbank/clock', undefined, { authorization: 'Bearer nope' })).body,
      controlError(401, 'UNAUTHENTICATED', 'The token is not one this server issued.'),
    );
    const alice = await call('POST', '/_fogbank/clock', { freeze: true }, { authorization: 'Bearer alice-token' });
    assert.equal(alice.status, 403);
    assert.deepEqual(alice.body, controlError(403, 'PERMISSION_DENIED', 'alice@example.com may not use the admin API: it takes the admin token.'));
  });

  it('answers 404 in its dialect to the admin on an unknown path, and leaves the publisher its download pages', async () => {
    assert.deepEqual((await call('GET', '/_fogbank/nothing-here')).body, controlError(404, 'NOT_FOUND', 'No admin API at /_fogbank/nothing-here.'));
    const publisher = await call('GET', '/_fogbank/publisher/nothing', undefined, {});
    assert.notEqual(publisher.body?.error?.status, 'UNAUTHENTICATED');
  });
});

describe('admin API: the clock', () => {
  it('reads, freezes, sets, advances and unfreezes the clock every family reads', async () => {
    assert.deepEqual((await call('GET', '/_fogbank/clock')).body, { now: '2026-01-01T00:00:00.000Z', frozen: false });
    assert.deepEqual((await call('POST', '/_fogbank/clock', { freeze: true })).body, { now: '2026-01-01T00:00:00.000Z', frozen: true });
    assert.deepEqual((await call('POST', '/_fogbank/clock', { set: '2026-03-01T12:00:00Z' })).body, { now: '2026-03-01T12:00:00.000Z', frozen: true });
    assert.deepEqual((await call('POST', '/_fogbank/clock', { advance: '1h30m' })).body, { now: '2026-03-01T13:30:00.000Z', frozen: true });
    assert.deepEqual((await call('POST', '/_fogbank/clock', { freeze: false })).body, { now: '2026-03-01T13:30:00.000Z', frozen: false });
    assert.equal(fb.control.clock.now(), Date.UTC(2026, 2, 1, 13, 30));
  });

  it('refuses bad clock requests with a 400 that names the problem', async () => {
    const cases: [unknown, string][] = [
      [{ advance: '1x' }, '"advance": time: unknown unit "x" in duration "1x" (write it as "1h", "30s", "1h30m" or "250ms")'],
      [{ advance: '10' }, '"advance": time: missing unit in duration "10" (write it as "1h", "30s", "1h30m" or "250ms")'],
      [{ advance: '-1h' }, '"advance": time: negative duration "-1h" (write it as "1h", "30s", "1h30m" or "250ms")'],
      [{ advance: 3600 }, '"advance" must be a duration string such as "1h", "30s" or "1h30m".'],
      [{ set: '2026-02-30T00:00:00Z' }, '"set": "2026-02-30T00:00:00Z" is not an RFC 3339 time such as "2026-01-01T00:00:00Z".'],
      [{ set: 'tomorrow' }, '"set": "tomorrow" is not an RFC 3339 time such as "2026-01-01T00:00:00Z".'],
      [{ freeze: 'yes' }, '"freeze" must be true or false.'],
      [{ speed: 2 }, 'Unknown field "speed": the clock takes one of "advance", "set" or "freeze".'],
      [{}, 'The body names no change: give one of "advance", "set" or "freeze".'],
      [{ freeze: true, advance: '1h' }, 'Give one change at a time: one of "advance", "set" or "freeze".'],
      [[1], 'The body must be a JSON object with one of "advance", "set" or "freeze".'],
    ];
    for (const [body, message] of cases)
      assert.deepEqual((await call('POST', '/_fogbank/clock', body)).body, controlError(400, 'INVALID_ARGUMENT', message), JSON.stringify(body));
    const malformed = await call('POST', '/_fogbank/clock', '{"advance":');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.status, 'INVALID_ARGUMENT');
  });

  it('finishes a realistic Operation when the clock advances, without waiting', async () => {
    await call('POST', '/_fogbank/clock', { freeze: true });
    const insert = await call('POST', '/compute/v1/projects/p/global/instanceTemplates', { name: 'clocked', properties: { machineType: 'e2-medium' } });
    assert.equal(insert.status, 200, JSON.stringify(insert.body));
    const operation = `/compute/v1/projects/p/global/operations/${insert.body.name}`;
    assert.equal((await call('GET', operation)).body.status, 'PENDING');
    await call('POST', '/_fogbank/clock', { advance: '1s' });
    const done = (await call('GET', operation)).body;
    assert.equal(done.status, 'DONE');
    assert.equal((await call('GET', '/compute/v1/projects/p/global/instanceTemplates/clocked')).status, 200);
    await call('POST', '/_fogbank/clock', { freeze: false });
  });

  it('expires Events past --event-ttl when the clock advances past it', async () => {
    await call('POST', '/_fogbank/clock', { freeze: true });
    const now = new Date(fb.control.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const created = await call('POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ttl-probe', namespace: 'default' },
      involvedObject: { kind: 'Namespace', name: 'default' },
      reason: 'Probe',
      firstTimestamp: now,
      lastTimestamp: now,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await call('POST', '/_fogbank/clock', { advance: '59m' });
    assert.equal((await call('GET', '/api/v1/namespaces/default/events/ttl-probe')).status, 200);
    await call('POST', '/_fogbank/clock', { advance: '2m' });
    assert.equal((await call('GET', '/api/v1/namespaces/default/events/ttl-probe')).status, 404);
    await call('POST', '/_fogbank/clock', { freeze: false });
  });
});

describe('admin API: the request journal', () => {
  it('lists answered requests newest first with their method ids, principals and statuses, and not its own', async () => {
    await call('GET', '/compute/v1/projects/p/global/instanceTemplates/nothing');
    await call(
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      { metadata: { name: 'journaled' }, rules: [] },
      { authorization: 'Bearer alice-token' },
    );
    await call('GET', '/gmail/v1/users/me/messages', undefined, {});
    const got = await call('GET', '/_fogbank/requests?limit=3');
    assert.equal(got.status, 200);
    const entries = got.body.requests.map((entry: Record<string, unknown>) => ({
      family: entry['family'],
      method: entry['method'],
      principal: entry['principal'],
      status: entry['status'],
    }));
    assert.deepEqual(entries, [
      { family: 'mail', method: 'gmail.users.messages.list', principal: null, status: 401 },
      { family: 'cluster', method: 'create clusterroles', principal: 'alice@example.com', status: 403 },
      { family: 'compute', method: 'compute.instanceTemplates.get', principal: 'admin@fogbank.local', status: 404 },
    ]);
    const first = got.body.requests[0];
    assert.deepEqual(Object.keys(first), ['time', 'family', 'method', 'principal', 'status', 'latencyMs', 'fault', 'httpMethod', 'path']);
    assert.equal(first.fault, null);
    assert.equal(typeof first.latencyMs, 'number');
    assert.ok(!got.body.requests.some((entry: { path: string }) => entry.path.startsWith('/_fogbank/')));
  });

  it('filters by family, method (exact or prefix*), status (code or class) and since', async () => {
    const family = (await call('GET', '/_fogbank/requests?family=cluster')).body.requests;
    assert.ok(family.length > 0 && family.every((entry: { family: string }) => entry.family === 'cluster'));
    assert.deepEqual(
      (await call('GET', '/_fogbank/requests?method=create%20clusterroles')).body.requests.map((entry: { method: string }) => entry.method),
      ['create clusterroles'],
    );
    const prefix = (await call('GET', '/_fogbank/requests?method=compute.instanceTemplates.*')).body.requests;
    assert.ok(prefix.length >= 2 && prefix.every((entry: { method: string }) => entry.method.startsWith('compute.instanceTemplates.')));
    assert.ok(
      (await call('GET', '/_fogbank/requests?status=4xx')).body.requests.every((entry: { status: number }) => entry.status >= 400 && entry.status < 500),
    );
    assert.deepEqual(
      (await call('GET', '/_fogbank/requests?status=401&limit=1')).body.requests.map((entry: { method: string }) => entry.method),
      ['gmail.users.messages.list'],
    );
    assert.deepEqual((await call('GET', '/_fogbank/requests?since=2999-01-01T00:00:00Z')).body, { requests: [] });
  });

  it('refuses a bad journal query with a 400 that names the problem', async () => {
    const cases: [string, string][] = [
      ['status=abc', '"status": "abc" is not an HTTP status (404) or class (4xx).'],
      ['limit=0', '"limit": "0" is not a whole number from 1.'],
      ['since=yesterday', '"since": "yesterday" is not an RFC 3339 time such as "2026-01-01T00:00:00Z".'],
      ['family=nope', 'Unknown family "nope": one of compute, cluster, mail, publisher, discovery, guard.'],
      ['colour=red', 'Unknown parameter "colour": the journal takes family, method, status, since, limit and bodies.'],
      ['limit=1&limit=2', 'Parameter "limit" is given more than once.'],
    ];
    for (const [query, message] of cases)
      assert.deepEqual((await call('GET', `/_fogbank/requests?${query}`)).body, controlError(400, 'INVALID_ARGUMENT', message), query);
  });

  it('follows new requests live as server-sent events until the client leaves', async () => {
    const url = new URL('/_fogbank/requests?family=compute', fb.url);
    const lines: string[] = [];
    const events = new Promise<string[]>((resolve, reject) => {
      const req = httpRequest(url, { headers: { ...admin, accept: 'text/event-stream' } }, (response) => {
        assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          if (buffer.startsWith(': following')) void call('GET', '/compute/v1/projects/p/global/instanceTemplates/followed').catch(() => undefined);
          for (const line of buffer.split('\n')) if (line.startsWith('data: ')) lines.push(line);
          buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
          if (lines.length >= 1) {
            req.destroy();
            resolve(lines);
          }
        });
      });
      req.on('error', (error) => (lines.length >= 1 ? undefined : reject(error)));
      req.end();
    });
    const [line] = await events;
    const entry = JSON.parse(line!.slice('data: '.length));
    assert.equal(entry.method, 'compute.instanceTemplates.get');
    assert.equal(entry.path, '/compute/v1/projects/p/global/instanceTemplates/followed');
  });
});

describe('admin API: snapshot, restore and reset', () => {
  const role = '/apis/rbac.authorization.k8s.io/v1/clusterroles/kept-by-admin-snapshot';

  it('GET /_fogbank/snapshot, POST /_fogbank/reset and PUT /_fogbank/snapshot give the state back as it was', async () => {
    const created = await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'kept-by-admin-snapshot' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    assert.equal(created.status, 201);
    const before = await call('GET', role);

    const snapshot = await fetch(`${fb.url}/_fogbank/snapshot`, { headers: admin });
    assert.equal(snapshot.status, 200);
    assert.equal(snapshot.headers.get('content-type'), 'application/gzip');
    const bytes = Buffer.from(await snapshot.arrayBuffer());
    assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b]);

    const reset = await call('POST', '/_fogbank/reset');
    assert.equal(reset.status, 200);
    assert.equal(typeof reset.body.revision, 'number');
    assert.equal((await call('GET', role)).status, 404);

    const restored = await fetch(`${fb.url}/_fogbank/snapshot`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/gzip' }, body: bytes });
    assert.equal(restored.status, 200);
    const summary = (await restored.json()) as { records: number; restoredAt: number; revision: number };
    assert.ok(summary.records > 0 && summary.restoredAt > reset.body.revision);
    assert.deepEqual((await call('GET', role)).body, before.body);
  });

  it('refuses a snapshot it cannot read, or one sent as another type, and changes nothing', async () => {
    const truncated = await fetch(`${fb.url}/_fogbank/snapshot`, {
      method: 'PUT',
      headers: { ...admin, 'content-type': 'application/gzip' },
      body: 'not a snapshot',
    });
    assert.equal(truncated.status, 400);
    assert.deepEqual(await truncated.json(), controlError(400, 'INVALID_ARGUMENT', 'not a fogbank snapshot: it is not gzip data'));
    const json = await call('PUT', '/_fogbank/snapshot', { snapshot: 'no' });
    assert.equal(json.status, 415);
    assert.deepEqual(
      json.body,
      controlError(415, 'INVALID_ARGUMENT', "a snapshot is sent as application/gzip or application/octet-stream, not 'application/json'"),
    );
    assert.equal((await call('GET', role)).status, 200, 'the state is the one before the refused snapshots');
  });

  it('is the admin’s only, like every admin route', async () => {
    for (const [method, path] of [
      ['GET', '/_fogbank/snapshot'],
      ['PUT', '/_fogbank/snapshot'],
      ['POST', '/_fogbank/reset'],
    ] as const) {
      assert.equal((await call(method, path, undefined, { authorization: 'Bearer alice-token' })).status, 403, `${method} ${path}`);
    }
    assert.equal((await call('GET', role)).status, 200);
  });

  it('POST /_fogbank/reset also drops the fault rules and empties the journal, and keeps the clock', async () => {
    await call('POST', '/_fogbank/faults', { family: 'mail', status: 503 });
    await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin');
    const clock = (await call('GET', '/_fogbank/clock')).body;
    assert.ok((await call('GET', '/_fogbank/requests')).body.requests.length > 0);
    assert.equal((await call('POST', '/_fogbank/reset')).status, 200);
    assert.deepEqual((await call('GET', '/_fogbank/faults')).body, { faults: [] });
    assert.deepEqual((await call('GET', '/_fogbank/requests')).body, { requests: [] });
    assert.deepEqual((await call('GET', '/_fogbank/clock')).body, clock);
  });
});

describe('admin API: fault rules', () => {
  it('adds a rule, fires it in the family’s own shape, lists it until spent, and removes rules', async () => {
    const added = await call('POST', '/_fogbank/faults', { method: 'get clusterroles', status: 429, retryAfter: 2, times: 1 });
    assert.equal(added.status, 201);
    assert.equal(added.body.family, 'cluster');
    assert.equal(typeof added.body.id, 'string');
    assert.deepEqual(
      (await call('GET', '/_fogbank/faults')).body.faults.map((rule: { id: string }) => rule.id),
      [added.body.id],
    );
    const refused = await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.kind, 'Status');
    assert.equal(refused.body.reason, 'TooManyRequests');
    assert.equal(refused.headers['retry-after'], '2');
    assert.equal((await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin')).status, 200, 'spent after one firing');
    assert.deepEqual((await call('GET', '/_fogbank/faults')).body, { faults: [] });

    const second = await call('POST', '/_fogbank/faults', { family: 'compute', status: 503 });
    assert.equal((await call('DELETE', `/_fogbank/faults/${second.body.id}`)).status, 204);
    assert.deepEqual((await call('DELETE', '/_fogbank/faults/no-such-rule')).body, controlError(404, 'NOT_FOUND', "No fault rule with id 'no-such-rule'."));
    await call('POST', '/_fogbank/faults', { family: 'mail', status: 500 });
    assert.equal((await call('DELETE', '/_fogbank/faults')).status, 204);
    assert.deepEqual((await call('GET', '/_fogbank/faults')).body, { faults: [] });
  });

  it('refuses a rule it cannot apply with a 400 that names the problem, and keeps none', async () => {
    const bad = await call('POST', '/_fogbank/faults', { method: 'compute.instanceTemplates.inster', status: 500 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.status, 'INVALID_ARGUMENT');
    assert.match(bad.body.error.message, /unknown method id "compute\.instanceTemplates\.inster"/);
    const wrongFamily = await call('POST', '/_fogbank/faults', { family: 'mail', watch: 'gone' });
    assert.equal(wrongFamily.status, 400);
    assert.deepEqual((await call('GET', '/_fogbank/faults')).body, { faults: [] });
  });
});
