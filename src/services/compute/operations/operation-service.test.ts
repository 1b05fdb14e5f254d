import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ManualClock, type Timers } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { StepTimers } from '../../../lib/testing/step-timers.ts';
import { MemoryStore } from '../../../store/memory-store.ts';
import { openStore } from '../../../store/open-store.ts';
import { computeService } from '../index.ts';
import { alreadyExists, ComputeError } from '../shared/errors.ts';
import { GLOBAL, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';
import { OPERATIONS_KIND, type StoredOperation } from './operation.ts';
import { OperationService, type StartRequest } from './operation-service.ts';
import { REQUEST_IDS_KIND } from './request-id.ts';

/**
 * The Operation life cycle through the HTTP surface (and, for the wait cap and retention, the
 * OperationService itself), with a manual clock and timers that fire only when the test says so.
 */

const ADMIN = { authorization: 'Bearer admin' };
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const OPS = '/compute/v1/projects/p/global/operations';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0, 250);
const NAME = /^operation-(\d+)-([0-9a-f]{13})-([0-9a-f]{8})-([0-9a-f]{8})$/;
const TIMEOUT = { timeout: 20_000 };

const neverTimers: Timers = { delay: () => new Promise<void>(() => undefined) };
const instantTimers: Timers = { delay: () => Promise.resolve() };

/** LooseJson is a parsed JSON body whose fields the tests read freely, as many response shapes are asserted. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary nested fields of many response shapes
type LooseJson = Record<string, any>;

interface Reply {
  readonly status: number;
  readonly body: LooseJson;
}

async function call(srv: RunningFogbank, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object): Promise<Reply> {
  const response = await srv.app.inject({ method, url, headers: ADMIN, ...(payload === undefined ? {} : { payload }) });
  return { status: response.statusCode, body: response.json() };
}

const template = (name: string, extra: Record<string, unknown> = {}): object => ({ name, properties: { machineType: 'e2-small', ...extra } });

async function ticks(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function operationNames(srv: RunningFogbank, project = 'p'): Promise<string[]> {
  const reply = await call(srv, 'GET', `/compute/v1/projects/${project}/aggregated/operations`);
  return Object.values(reply.body['items'] as Record<string, { operations?: { name: string }[] }>)
    .flatMap((scope) => (scope.operations ?? []).map((op) => op.name))
    .sort();
}

async function templateNames(srv: RunningFogbank): Promise<string[]> {
  const reply = await call(srv, 'GET', TEMPLATES);
  return (reply.body['items'] as { name: string }[]).map((t) => t.name);
}

describe('realistic Operations', () => {
  let srv: RunningFogbank;
  const clock = new ManualClock(T0);
  const timers = new StepTimers();

  before(async () => {
    // Compute alone: the stepped timers then hold only the Operations' delays (the cluster's Event expiry sleeps on them too).
    srv = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      operations: 'realistic',
      adminToken: 'admin',
      logLevel: 'silent',
      clock,
      timers,
      ids: seededIds('ops-realistic'),
      services: [computeService],
    });
  });
  after(async () => {
    await srv.close();
  });

  test('PENDING → RUNNING → DONE with monotonic progress and RFC 3339 times', TIMEOUT, async () => {
    const inserted = await call(srv, 'POST', TEMPLATES, template('life'));
    assert.equal(inserted.status, 200);
    const op = inserted.body;
    assert.equal(op['status'], 'PENDING');
    assert.equal(op['progress'], 0);
    assert.equal(op['insertTime'], rfc3339(T0));
    assert.equal(op['insertTime'], '2025-01-01T04:00:00.250-08:00');
    assert.equal(op['startTime'], undefined);
    assert.equal(op['endTime'], undefined);
    assert.equal((await call(srv, 'GET', `${TEMPLATES}/life`)).status, 404);
    assert.deepEqual(timers.asleep, [100]);

    // The name encodes the insert time twice: as ms, and as µs in 13 hex digits.
    const match = NAME.exec(op['name']);
    assert.ok(match, op['name']);
    assert.equal(match[1], String(T0));
    assert.equal(BigInt(`0x${match[2]}`) / 1000n, BigInt(T0));

    clock.advance(100);
    timers.fire();
    await timers.sleepers(1);
    assert.deepEqual(timers.asleep, [300]);
    const running = (await call(srv, 'GET', `${OPS}/${op['name']}`)).body;
    assert.equal(running['status'], 'RUNNING');
    assert.equal(running['startTime'], '2025-01-01T04:00:00.350-08:00');
    assert.equal(running['endTime'], undefined);
    assert.equal((await call(srv, 'GET', `${TEMPLATES}/life`)).status, 404);

    // wait blocks while the work is unfinished and answers as soon as it is DONE.
    let settled = false;
    const waited = call(srv, 'POST', `${OPS}/${op['name']}/wait`).then((reply) => {
      settled = true;
      return reply;
    });
    await ticks();
    assert.equal(settled, false);
    clock.advance(300);
    timers.fire();
    const done = (await waited).body;
    assert.equal(done['status'], 'DONE');
    assert.equal(done['progress'], 100);
    assert.equal(done['insertTime'], '2025-01-01T04:00:00.250-08:00');
    assert.equal(done['startTime'], '2025-01-01T04:00:00.350-08:00');
    assert.equal(done['endTime'], '2025-01-01T04:00:00.650-08:00');
    assert.equal(done['error'], undefined);
    for (const field of ['insertTime', 'startTime', 'endTime']) assert.match(done[field], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d$/);

    const progress = [op['progress'], running['progress'], done['progress']];
    assert.deepEqual(
      [...progress].sort((a, b) => a - b),
      progress,
    );
    const statuses = [op['status'], running['status'], done['status']];
    assert.deepEqual(statuses, ['PENDING', 'RUNNING', 'DONE']);

    const created = await call(srv, 'GET', `${TEMPLATES}/life`);
    assert.equal(created.status, 200);
    assert.equal(created.body['id'], done['targetId']);
    assert.equal(created.body['creationTimestamp'], '2025-01-01T04:00:00.650-08:00');
  });

  test('wait on a DONE Operation answers at once', TIMEOUT, async () => {
    const names = await operationNames(srv);
    const reply = await call(srv, 'POST', `${OPS}/${names[0]}/wait`);
    assert.equal(reply.status, 200);
    assert.equal(reply.body['status'], 'DONE');
  });

  test('two inserts of one name racing inside Operations: the second fails with RESOURCE_ALREADY_EXISTS', TIMEOUT, async () => {
    const first = (await call(srv, 'POST', TEMPLATES, template('race', { description: 'first' }))).body;
    const second = (await call(srv, 'POST', TEMPLATES, template('race', { description: 'second' }))).body;
    assert.equal(first['status'], 'PENDING');
    assert.equal(second['status'], 'PENDING');
    await timers.sleepers(2);
    timers.fire();
    await timers.sleepers(2);
    timers.fire();
    const results = await Promise.all([first, second].map(async (op) => (await call(srv, 'POST', `${OPS}/${op['name']}/wait`)).body));
    const succeeded = results.filter((op) => op['error'] === undefined);
    const failed = results.filter((op) => op['error'] !== undefined);
    assert.equal(succeeded.length, 1);
    assert.equal(failed.length, 1);
    const loser = failed[0]!;
    assert.equal(loser['status'], 'DONE');
    assert.equal(loser['progress'], 100);
    assert.deepEqual(loser['error'], {
      errors: [{ code: 'RESOURCE_ALREADY_EXISTS', message: "The resource 'projects/p/global/instanceTemplates/race' already exists" }],
    });
    assert.equal(loser['httpErrorStatusCode'], 409);
    assert.equal(loser['httpErrorMessage'], 'CONFLICT');
    const stored = await call(srv, 'GET', `${TEMPLATES}/race`);
    assert.equal(stored.body['id'], succeeded[0]!['targetId']);
    assert.equal(stored.body['properties']['description'], succeeded[0]!['name'] === first['name'] ? 'first' : 'second');

    // Once it exists, a third insert is refused on the request itself.
    const before = await operationNames(srv);
    const third = await call(srv, 'POST', TEMPLATES, template('race'));
    assert.equal(third.status, 409);
    assert.equal(third.body['error']['message'], "The resource 'projects/p/global/instanceTemplates/race' already exists");
    assert.deepEqual(await operationNames(srv), before);
  });

  test('a requestId repeated while the Operation runs returns it in its current state', TIMEOUT, async () => {
    const requestId = '6f1c1a8e-3b7d-4c1e-9a55-0c2d5e9b7a10';
    const first = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem-running'))).body;
    assert.equal(first['status'], 'PENDING');
    assert.equal(first['clientOperationId'], requestId);
    const opsBefore = await operationNames(srv);
    const again = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem-running'))).body;
    assert.deepEqual(again, first);
    assert.deepEqual(await operationNames(srv), opsBefore);
    await timers.sleepers(1);
    timers.fire();
    await timers.sleepers(1);
    const running = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem-running'))).body;
    assert.equal(running['name'], first['name']);
    assert.equal(running['status'], 'RUNNING');
    timers.fire();
    assert.equal((await call(srv, 'POST', `${OPS}/${first['name']}/wait`)).body['status'], 'DONE');
    const done = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem-running'))).body;
    assert.equal(done['name'], first['name']);
    assert.equal(done['status'], 'DONE');
    assert.equal(done['error'], undefined);
    assert.deepEqual(await operationNames(srv), opsBefore);
  });
});

describe('instant Operations: get, list, delete, aggregated, requestId, failures', () => {
  let srv: RunningFogbank;
  const clock = new ManualClock(T0);

  before(async () => {
    srv = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      operations: 'instant',
      adminToken: 'admin',
      logLevel: 'silent',
      clock,
      ids: seededIds('ops-instant'),
    });
  });
  after(async () => {
    await srv.close();
  });

  test('global and regional Operations: get, list, aggregated, delete', TIMEOUT, async () => {
    const global = (await call(srv, 'POST', TEMPLATES, template('g1'))).body;
    clock.advance(1);
    const regional = (await call(srv, 'POST', '/compute/v1/projects/p/regions/us-central1/instanceTemplates', template('r1'))).body;
    assert.equal(global['status'], 'DONE');
    assert.equal(regional['status'], 'DONE');
    assert.equal(global['region'], undefined);
    assert.equal(regional['region'], 'http://localhost:80/compute/v1/projects/p/regions/us-central1');
    assert.equal(global['selfLink'], `http://localhost:80${OPS}/${global['name']}`);
    assert.equal(regional['selfLink'], `http://localhost:80/compute/v1/projects/p/regions/us-central1/operations/${regional['name']}`);

    assert.deepEqual((await call(srv, 'GET', `${OPS}/${global['name']}`)).body, global);
    const regionalOps = '/compute/v1/projects/p/regions/us-central1/operations';
    assert.deepEqual((await call(srv, 'GET', `${regionalOps}/${regional['name']}`)).body, regional);
    const wrongScope = await call(srv, 'GET', `${OPS}/${regional['name']}`);
    assert.equal(wrongScope.status, 404);
    assert.equal(wrongScope.body['error']['message'], `The resource 'projects/p/global/operations/${regional['name']}' was not found`);
    const wrongRegion = await call(srv, 'GET', `/compute/v1/projects/p/regions/us-east1/operations/${regional['name']}`);
    assert.equal(wrongRegion.status, 404);

    const globalList = (await call(srv, 'GET', OPS)).body;
    assert.equal(globalList['kind'], 'compute#operationList');
    assert.equal(globalList['id'], 'projects/p/global/operations');
    assert.equal(globalList['selfLink'], `http://localhost:80${OPS}`);
    assert.deepEqual(globalList['items'], [global]);
    assert.deepEqual((await call(srv, 'GET', regionalOps)).body['items'], [regional]);
    assert.deepEqual((await call(srv, 'GET', '/compute/v1/projects/p/regions/us-east1/operations')).body['items'] ?? [], []);
    assert.deepEqual((await call(srv, 'GET', '/compute/v1/projects/p/zones/us-central1-a/operations')).body['items'] ?? [], []);
    assert.deepEqual((await call(srv, 'GET', '/compute/v1/projects/other/global/operations')).body['items'] ?? [], []);

    const aggregated = (await call(srv, 'GET', '/compute/v1/projects/p/aggregated/operations')).body;
    assert.equal(aggregated['kind'], 'compute#operationAggregatedList');
    assert.equal(aggregated['id'], 'projects/p/aggregated/operations');
    assert.deepEqual(aggregated['items'], { global: { operations: [global] }, 'regions/us-central1': { operations: [regional] } });
    const allScopes = (await call(srv, 'GET', '/compute/v1/projects/p/aggregated/operations?includeAllScopes=True')).body;
    assert.deepEqual(allScopes['items']['regions/us-east1'], {
      warning: {
        code: 'NO_RESULTS_ON_PAGE',
        message: "There are no results for scope 'regions/us-east1' on this page.",
        data: [{ key: 'scope', value: 'regions/us-east1' }],
      },
    });
    assert.deepEqual(allScopes['items']['global'], { operations: [global] });

    const deleted = await call(srv, 'DELETE', `${OPS}/${global['name']}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {});
    const gone = await call(srv, 'GET', `${OPS}/${global['name']}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body['error']['errors'], [
      { message: `The resource 'projects/p/global/operations/${global['name']}' was not found`, domain: 'global', reason: 'notFound' },
    ]);
    assert.equal((await call(srv, 'DELETE', `${OPS}/${global['name']}`)).status, 404);
    assert.equal((await call(srv, 'POST', `${OPS}/${global['name']}/wait`)).status, 404);
    assert.deepEqual((await call(srv, 'GET', OPS)).body['items'] ?? [], []);
    // Deleting the Operation leaves what it made.
    assert.equal((await call(srv, 'GET', `${TEMPLATES}/g1`)).status, 200);
    assert.equal((await call(srv, 'DELETE', `${regionalOps}/${regional['name']}`)).status, 200);
    assert.deepEqual(await operationNames(srv), []);
  });

  test('a delete Operation removes the template and its operationType is delete', TIMEOUT, async () => {
    const op = (await call(srv, 'DELETE', `${TEMPLATES}/g1`)).body;
    assert.equal(op['operationType'], 'delete');
    assert.equal(op['status'], 'DONE');
    assert.equal(op['targetLink'], `http://localhost:80${TEMPLATES}/g1`);
    assert.equal((await call(srv, 'GET', `${TEMPLATES}/g1`)).status, 404);
  });

  test('a repeated requestId returns the same Operation and inserts once', TIMEOUT, async () => {
    const requestId = '0b7f7a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const opsBefore = await operationNames(srv);
    const first = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem'))).body;
    assert.equal(first['status'], 'DONE');
    assert.equal(first['clientOperationId'], requestId);
    clock.advance(5);
    const again = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId.toUpperCase()}`, template('idem'))).body;
    assert.deepEqual(again, first);
    // The repeat is ignored even when its body differs, or would now be refused.
    const different = (await call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('idem', { description: 'changed' }))).body;
    assert.deepEqual(different, first);
    assert.equal((await call(srv, 'GET', `${TEMPLATES}/idem`)).body['description'], '');
    assert.deepEqual(await operationNames(srv), [...opsBefore, first['name']].sort());
    assert.deepEqual(await templateNames(srv), ['idem']);

    // Scoped per project: the same requestId elsewhere is a new request.
    const elsewhere = (await call(srv, 'POST', `/compute/v1/projects/q/global/instanceTemplates?requestId=${requestId}`, template('idem'))).body;
    assert.notEqual(elsewhere['name'], first['name']);
    assert.equal(elsewhere['status'], 'DONE');
    assert.deepEqual(await operationNames(srv, 'q'), [elsewhere['name']]);
  });

  test('two concurrent identical requests with one requestId run once', TIMEOUT, async () => {
    const requestId = '3d5e7f90-aaaa-4bbb-8ccc-ddddeeeeffff';
    const opsBefore = await operationNames(srv);
    const replies = await Promise.all([0, 1].map(() => call(srv, 'POST', `${TEMPLATES}?requestId=${requestId}`, template('twin'))));
    assert.deepEqual(
      replies.map((reply) => reply.status),
      [200, 200],
    );
    assert.equal(replies[0]!.body['name'], replies[1]!.body['name']);
    assert.equal(replies[0]!.body['id'], replies[1]!.body['id']);
    assert.deepEqual(await operationNames(srv), [...opsBefore, replies[0]!.body['name']].sort());
    assert.deepEqual(await templateNames(srv), ['idem', 'twin']);
    const done = (await call(srv, 'GET', `${OPS}/${replies[0]!.body['name']}`)).body;
    assert.equal(done['status'], 'DONE');
    assert.equal(done['error'], undefined);
  });

  for (const machineType of [
    'zones/us-central1-a/machineTypes/e2-small',
    'https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/machineTypes/e2-small',
  ]) {
    test(`machineType as a URL (${machineType.slice(0, 5)}…) fails inside the Operation with INTERNAL_ERROR`, TIMEOUT, async () => {
      const opsBefore = await operationNames(srv);
      const reply = await call(srv, 'POST', TEMPLATES, { name: 'by-url', properties: { machineType } });
      assert.equal(reply.status, 200);
      const op = reply.body;
      assert.equal(op['status'], 'DONE');
      assert.equal(op['progress'], 100);
      assert.equal(op['error']['errors'].length, 1);
      assert.equal(op['error']['errors'][0]['code'], 'INTERNAL_ERROR');
      assert.match(op['error']['errors'][0]['message'], /^Internal error\. Please try again or contact Google Support\. \(Code: '\d+'\)$/);
      assert.equal(op['httpErrorStatusCode'], 500);
      assert.equal(op['httpErrorMessage'], 'INTERNAL SERVER ERROR');
      assert.equal((await call(srv, 'GET', `${TEMPLATES}/by-url`)).status, 404);
      assert.deepEqual((await call(srv, 'GET', `${OPS}/${op['name']}`)).body, op);
      assert.deepEqual(await operationNames(srv), [...opsBefore, op['name']].sort());
      assert.deepEqual(await templateNames(srv), ['idem', 'twin']);
    });
  }

  test('operation lists page with maxResults and pageToken', TIMEOUT, async () => {
    const all = (await call(srv, 'GET', OPS)).body['items'] as { name: string }[];
    assert.ok(all.length >= 3);
    const names: string[] = [];
    let url = `${OPS}?maxResults=2`;
    for (;;) {
      const page = (await call(srv, 'GET', url)).body;
      assert.ok((page['items'] as unknown[]).length <= 2);
      names.push(...(page['items'] as { name: string }[]).map((op) => op.name));
      if (page['nextPageToken'] === undefined) break;
      url = `${OPS}?maxResults=2&pageToken=${page['nextPageToken']}`;
    }
    assert.deepEqual(
      names,
      all.map((op) => op.name),
    );
  });
});

describe('OperationService', () => {
  const request = (key: string, extra: Partial<StartRequest> = {}): StartRequest => ({
    project: 'p',
    scope: GLOBAL,
    operationType: 'insert',
    targetPath: `projects/p/global/things/${key}`,
    user: 'someone@example.com',
    work: { action: 'things.insert', payload: { key } },
    ...extra,
  });

  function service(
    mode: 'instant' | 'realistic',
    clock: ManualClock,
    options: { timers?: Timers; waitCapMs?: number; retentionMs?: number } = {},
  ): { ops: OperationService; store: MemoryStore } {
    const store = new MemoryStore();
    const ops = new OperationService({
      store,
      clock,
      timers: options.timers ?? neverTimers,
      ids: seededIds(`svc-${mode}`),
      mode,
      ...(options.waitCapMs === undefined ? {} : { waitCapMs: options.waitCapMs }),
      ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
    });
    ops.register('things.insert', async (tx, payload) => {
      const { key } = payload as { key: string };
      if ((await tx.get('test.things', key)) !== undefined) throw alreadyExists(`projects/p/global/things/${key}`);
      await tx.put('test.things', key, { key });
      if (key.startsWith('fail-')) throw alreadyExists(`projects/p/global/things/${key}`);
      return { targetId: '77' };
    });
    return { ops, store };
  }

  test('wait returns the current state once the cap passes', TIMEOUT, async () => {
    const { ops, store } = service('realistic', new ManualClock(T0), { waitCapMs: 5 });
    await ops.open();
    try {
      const op = await ops.start(request('slow'));
      assert.equal(op.status, 'PENDING');
      const waited = await ops.wait('p', GLOBAL, op.name);
      assert.equal(waited.status, 'PENDING');
      assert.equal(waited.name, op.name);
      assert.equal(await store.get('test.things', 'slow'), undefined);
    } finally {
      await ops.close();
      await store.close();
    }
  });

  test('wait on an Operation deleted meanwhile ends with 404', TIMEOUT, async () => {
    const { ops, store } = service('realistic', new ManualClock(T0), { waitCapMs: 60_000 });
    await ops.open();
    try {
      const op = await ops.start(request('doomed'));
      const waited = ops.wait('p', GLOBAL, op.name);
      await ticks();
      await ops.remove('p', GLOBAL, op.name);
      await assert.rejects(
        waited,
        (error: unknown) =>
          error instanceof ComputeError && error.httpStatus === 404 && error.message === `The resource 'projects/p/global/operations/${op.name}' was not found`,
      );
    } finally {
      await ops.close();
      await store.close();
    }
  });

  test('a failing executor leaves DONE with error and rolls its writes back', TIMEOUT, async () => {
    const { ops, store } = service('instant', new ManualClock(T0));
    await ops.open();
    try {
      const op = await ops.start(request('fail-1'));
      assert.equal(op.status, 'DONE');
      assert.deepEqual(op.errors, [{ code: 'RESOURCE_ALREADY_EXISTS', message: "The resource 'projects/p/global/things/fail-1' already exists" }]);
      assert.equal(op.httpErrorStatusCode, 409);
      assert.equal(op.httpErrorMessage, 'CONFLICT');
      assert.equal(op.work, undefined);
      assert.equal(await store.get('test.things', 'fail-1'), undefined);
      const ok = await ops.start(request('fine'));
      assert.equal(ok.targetId, '77');
      assert.equal(ok.errors, undefined);
    } finally {
      await ops.close();
      await store.close();
    }
  });

  test('sweep removes DONE Operations past retention, with their requestId entries, and nothing else', TIMEOUT, async () => {
    const clock = new ManualClock(T0);
    const timers = new StepTimers();
    const { ops, store } = service('instant', clock, { retentionMs: 1_000 });
    const slow = new OperationService({ store, clock, timers, ids: seededIds('svc-slow'), mode: 'realistic', retentionMs: 1_000 });
    slow.register('things.insert', async () => undefined);
    await ops.open();
    try {
      const requestId = '9c2b1a3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
      const old = await ops.start(request('old', { requestId }));
      const unfinished = await slow.start(request('unfinished'));
      clock.advance(600);
      const recent = await ops.start(request('recent', { requestId: '1c2b1a3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' }));
      clock.advance(401);
      assert.equal(await ops.sweep(), 1);
      await assert.rejects(ops.get('p', GLOBAL, old.name), (error: unknown) => error instanceof ComputeError && error.httpStatus === 404);
      assert.equal(await ops.byRequestId('p', GLOBAL, requestId), undefined);
      assert.equal(await store.get(REQUEST_IDS_KIND, `p/global/${requestId}`), undefined);
      assert.equal((await ops.get('p', GLOBAL, recent.name)).status, 'DONE');
      assert.equal((await ops.byRequestId('p', GLOBAL, '1c2b1a3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d'))?.name, recent.name);
      assert.equal((await ops.get('p', GLOBAL, unfinished.name)).status, 'PENDING');
      // The made thing outlives its Operation; the requestId is free again.
      assert.deepEqual(await store.get('test.things', 'old').then((r) => r?.value), { key: 'old' });
      const reused = await ops.start(request('old-again', { requestId }));
      assert.notEqual(reused.name, old.name);
      clock.advance(10_000);
      assert.equal(await ops.sweep(), 2);
      assert.deepEqual(
        (await ops.list('p')).map((op) => op.name),
        [unfinished.name],
      );
    } finally {
      await slow.close();
      await ops.close();
      await store.close();
    }
  });

  test('list is per scope; get of another scope is 404', TIMEOUT, async () => {
    const { ops, store } = service('instant', new ManualClock(T0));
    await ops.open();
    try {
      const region: Scope = { kind: 'region', name: 'us-central1' };
      const a = await ops.start(request('a'));
      const b = await ops.start(request('b', { scope: region }));
      assert.deepEqual(
        (await ops.list('p', GLOBAL)).map((op) => op.name),
        [a.name],
      );
      assert.deepEqual(
        (await ops.list('p', region)).map((op) => op.name),
        [b.name],
      );
      assert.deepEqual((await ops.list('p')).map((op) => op.name).sort(), [a.name, b.name].sort());
      await assert.rejects(
        ops.get('p', GLOBAL, b.name),
        (error: unknown) => error instanceof ComputeError && error.message === `The resource 'projects/p/global/operations/${b.name}' was not found`,
      );
      await assert.rejects(ops.remove('p', region, a.name), (error: unknown) => error instanceof ComputeError && error.httpStatus === 404);
    } finally {
      await ops.close();
      await store.close();
    }
  });
});

describe('restart', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fogbank-ops-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('unfinished Operations (PENDING and RUNNING) resume after a restart', TIMEOUT, async () => {
    const clock = new ManualClock(T0);
    const timers = new StepTimers();
    // Compute alone: the given timers then drive only the Operations (the cluster's Event expiry sleeps on them too).
    const common = {
      host: '127.0.0.1',
      port: 0,
      store: 'sqlite',
      dataDir,
      adminToken: 'admin',
      logLevel: 'silent',
      operations: 'realistic',
      clock,
      services: [computeService],
    } as const;
    const first = await startFogbank({ ...common, timers, ids: seededIds('restart-1') });
    let running: LooseJson;
    let pending: LooseJson;
    try {
      running = (await call(first, 'POST', TEMPLATES, template('resumed-running'))).body;
      await timers.sleepers(1);
      timers.fire();
      await timers.sleepers(1);
      pending = (await call(first, 'POST', TEMPLATES, template('resumed-pending'))).body;
      await timers.sleepers(2);
      assert.equal((await call(first, 'GET', `${OPS}/${running['name']}`)).body['status'], 'RUNNING');
      assert.equal((await call(first, 'GET', `${OPS}/${pending['name']}`)).body['status'], 'PENDING');
    } finally {
      // Closing must not wait for timers that will never fire.
      await first.close();
    }

    const store = await openStore('sqlite', { dataDir });
    try {
      const stored = (await store.list<StoredOperation>(OPERATIONS_KIND)).map((record) => record.value);
      assert.deepEqual(
        stored.map((op) => [op.name, op.status, op.work?.action]).sort(),
        [
          [running['name'], 'RUNNING', 'instanceTemplates.insert'],
          [pending['name'], 'PENDING', 'instanceTemplates.insert'],
        ].sort(),
      );
      assert.deepEqual(await store.list('compute.instanceTemplates'), []);
    } finally {
      await store.close();
    }

    clock.advance(1_000);
    const second = await startFogbank({ ...common, timers: instantTimers, ids: seededIds('restart-2') });
    try {
      for (const op of [running, pending]) {
        const done = (await call(second, 'POST', `${OPS}/${op['name']}/wait`)).body;
        assert.equal(done['status'], 'DONE');
        assert.equal(done['error'], undefined);
        assert.equal(done['endTime'], rfc3339(T0 + 1_000));
        const made = await call(second, 'GET', `${TEMPLATES}/${op === running ? 'resumed-running' : 'resumed-pending'}`);
        assert.equal(made.status, 200);
        assert.equal(made.body['id'], op['targetId']);
      }
      assert.equal((await call(second, 'GET', `${OPS}/${running['name']}`)).body['startTime'], rfc3339(T0));
      assert.equal((await call(second, 'GET', `${OPS}/${pending['name']}`)).body['startTime'], rfc3339(T0 + 1_000));
    } finally {
      await second.close();
    }
  });

  test('an Operation whose first server never ran it finishes after the restart', TIMEOUT, async () => {
    const common = {
      host: '127.0.0.1',
      port: 0,
      store: 'sqlite',
      dataDir,
      adminToken: 'admin',
      logLevel: 'silent',
      operations: 'realistic',
      services: [computeService],
    } as const;
    const first = await startFogbank({ ...common, timers: neverTimers });
    let op: LooseJson;
    try {
      op = (await call(first, 'POST', TEMPLATES, template('never-fired'))).body;
      assert.equal(op['status'], 'PENDING');
    } finally {
      await first.close();
    }
    const second = await startFogbank({ ...common, timers: instantTimers });
    try {
      const done = (await call(second, 'POST', `${OPS}/${op['name']}/wait`)).body;
      assert.equal(done['status'], 'DONE');
      assert.equal((await call(second, 'GET', `${TEMPLATES}/never-fired`)).status, 200);
    } finally {
      await second.close();
    }
  });
});
