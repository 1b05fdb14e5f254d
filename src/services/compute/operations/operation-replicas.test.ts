import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock, type Timers } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { startPostgres, type PostgresServer } from '../../../testing/postgres-server.ts';
import { PostgresStore } from '../../../store/postgres-store.ts';
import { GLOBAL } from '../shared/locations.ts';
import { OPERATIONS_KIND, type StoredOperation } from './operation.ts';
import { OperationService } from './operation-service.ts';

// Two replicas' OperationServices on one PostgreSQL database: each unfinished Operation is
// driven by one of them, and the survivor finishes the Operations of one that died.

const neverTimers: Timers = { delay: () => new Promise<void>(() => undefined) };
const promptTimers: Timers = { delay: () => new Promise<void>((resolve) => setTimeout(resolve, 5)) };

describe('Operations across replicas', () => {
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server?.stop();
  });

  function replica(store: PostgresStore, name: string, timers: Timers, runs: string[]): OperationService {
    const ops = new OperationService({ store, clock: new ManualClock(), timers, ids: seededIds(name), mode: 'realistic', leaseMs: 2000 });
    ops.register('things.insert', async (tx, payload) => {
      const { key } = payload as { key: string };
      runs.push(`${name}:${key}`);
      await tx.put('test.things', key, { key, by: name });
    });
    return ops;
  }

  test('the survivor finishes every Operation of a replica that died, each work running once', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase('operations_takeover');
    const storeA = await PostgresStore.open(url);
    const storeB = await PostgresStore.open(url);
    const runs: string[] = [];
    // A accepts Operations but never gets to run them (its timers never fire), then dies.
    const a = replica(storeA, 'a', neverTimers, runs);
    const b = replica(storeB, 'b', promptTimers, runs);
    await a.open();
    await b.open();
    try {
      const started: StoredOperation[] = [];
      for (let i = 0; i < 6; i++) {
        started.push(
          await a.start({
            project: 'p',
            scope: GLOBAL,
            operationType: 'insert',
            targetPath: `projects/p/global/things/t${i}`,
            user: 'u',
            work: { action: 'things.insert', payload: { key: `t${i}` } },
          }),
        );
      }
      // While A is alive and renewing, B leaves its Operations alone.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.deepEqual(runs, []);
      assert.ok((await storeB.list<StoredOperation>(OPERATIONS_KIND)).every((r) => r.value.status === 'PENDING'));
      // A dies: its database connections go, so its leases stop being renewed.
      await storeA.close();
      const done = await Promise.all(started.map((op) => b.wait('p', GLOBAL, op.name)));
      assert.deepEqual(
        done.map((op) => op.status),
        Array(6).fill('DONE'),
      );
      assert.deepEqual(
        runs.sort(),
        Array.from({ length: 6 }, (_, i) => `b:t${i}`),
      );
      assert.equal(await storeB.count('test.things'), 6);
    } finally {
      await a.close();
      await b.close();
      await storeB.close();
    }
  });

  test('an Operation started on one replica is driven there, and waited on from the other', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase('operations_shared');
    const storeA = await PostgresStore.open(url);
    const storeB = await PostgresStore.open(url);
    const runs: string[] = [];
    const a = replica(storeA, 'a', promptTimers, runs);
    const b = replica(storeB, 'b', promptTimers, runs);
    await a.open();
    await b.open();
    try {
      const op = await a.start({
        project: 'p',
        scope: GLOBAL,
        operationType: 'insert',
        targetPath: 'projects/p/global/things/x',
        user: 'u',
        work: { action: 'things.insert', payload: { key: 'x' } },
      });
      const done = await b.wait('p', GLOBAL, op.name);
      assert.equal(done.status, 'DONE');
      assert.deepEqual(runs, ['a:x']);
    } finally {
      await a.close();
      await b.close();
      await storeA.close();
      await storeB.close();
    }
  });
});
