import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock, type Timers } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { MemoryStore } from '../../../store/memory-store.ts';
import { notFound } from '../shared/errors.ts';
import { GLOBAL } from '../shared/locations.ts';
import { OPERATIONS_KIND } from './operation.ts';
import { OperationService } from './operation-service.ts';
import { REQUEST_IDS_KIND } from './request-id.ts';

/**
 * Issue 13 item 7: under sustained inserts the in-memory store must not keep every Operation for
 * a day. With a count limit, completed Operations beyond it are forgotten oldest first (with their
 * requestId entries); the newest stay readable; the bound holds however many Operations run.
 */
const instantTimers: Timers = { delay: () => Promise.resolve() };

async function settle(): Promise<void> {
  // Evictions run after the change that triggers them is delivered: let queued work finish.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('Operation retention by count', () => {
  test('completed Operations stay within the limit (plus one eviction batch), oldest forgotten first', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    const max = 50;
    const ops = new OperationService({ store, clock, timers: instantTimers, ids: seededIds('retention'), mode: 'instant', maxRetained: max });
    ops.register('things.insert', async () => undefined);
    await ops.open();
    const names: string[] = [];
    for (let i = 0; i < 600; i++) {
      const requestId = `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
      const op = await ops.start({
        project: 'p',
        scope: GLOBAL,
        operationType: 'insert',
        targetPath: `projects/p/global/things/t${i}`,
        user: 'u',
        requestId,
        work: { action: 'things.insert', payload: null },
      });
      names.push(op.name);
      clock.advance(10);
      await settle();
      const kept = await store.count(OPERATIONS_KIND);
      assert.ok(kept <= max + max / 10 + 1, `after ${i + 1} Operations ${kept} are kept`);
    }
    await settle();
    const kept = (await store.list(OPERATIONS_KIND)).length;
    assert.ok(kept >= max && kept <= max + max / 10 + 1, `${kept} kept`);
    assert.equal(ops.retainedCount, kept);
    // The newest are all there; the oldest are gone, with their requestId entries.
    for (const name of names.slice(-max)) assert.equal((await ops.get('p', GLOBAL, name)).status, 'DONE');
    await assert.rejects(
      ops.get('p', GLOBAL, names[0]!),
      (error: unknown) => (error as Error).message === notFound(`projects/p/global/operations/${names[0]}`).message,
    );
    assert.equal(await store.count(REQUEST_IDS_KIND), kept);
    await ops.close();
  });

  test('without a limit (the SQLite store) nothing is forgotten before its age', async () => {
    const store = new MemoryStore();
    const ops = new OperationService({
      store,
      clock: new ManualClock(Date.UTC(2025, 0, 1)),
      timers: instantTimers,
      ids: seededIds('no-limit'),
      mode: 'instant',
    });
    ops.register('things.insert', async () => undefined);
    await ops.open();
    for (let i = 0; i < 120; i++)
      await ops.start({
        project: 'p',
        scope: GLOBAL,
        operationType: 'insert',
        targetPath: `projects/p/global/things/t${i}`,
        user: 'u',
        work: { action: 'things.insert', payload: null },
      });
    await settle();
    assert.equal(await store.count(OPERATIONS_KIND), 120);
    await ops.close();
  });
});
