import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../lib/clock.ts';
import { StepTimers } from '../lib/testing/step-timers.ts';
import { HeldLease } from './held-lease.ts';
import { Leader, type StartSingleton } from './leader.ts';
import { LocalLeases } from './local-leases.ts';
import { startPostgres, type PostgresServer } from '../testing/postgres-server.ts';
import { PostgresStore } from './postgres-store.ts';
import type { Leases } from './store.ts';

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** settle lets the promises a fired timer released run to their end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Journal is singleton work that records, per replica, when it started and stopped. */
class Journal {
  readonly entries: string[] = [];
  running = 0;
  work(replica: string): StartSingleton {
    return () => {
      this.entries.push(`${replica} started`);
      this.running++;
      return {
        stop: () => {
          this.entries.push(`${replica} stopped`);
          this.running--;
        },
      };
    };
  }
}

/** FlakyLeases are a lease table whose database can be cut off (every call throws), as when the network fails. */
class FlakyLeases implements Leases {
  readonly shared = true;
  reachable = true;
  constructor(readonly inner: Leases) {}
  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    if (!this.reachable) throw new Error('connection refused');
    return this.inner.acquire(name, holder, ttlMs);
  }
  async release(name: string, holder: string): Promise<void> {
    if (!this.reachable) throw new Error('connection refused');
    await this.inner.release(name, holder);
  }
}

describe('singleton work under a Leader, with a manual clock and timers', () => {
  it('runs on one of two holders; a clean stop hands it to the other at its next round', async () => {
    const leases = new LocalLeases();
    const clock = new ManualClock();
    const timers = new StepTimers();
    const journal = new Journal();
    const options = { ttlMs: 900, now: () => clock.now(), timers };
    const a = new Leader(leases, 'expiry', 'a', journal.work('a'), options);
    const b = new Leader(leases, 'expiry', 'b', journal.work('b'), options);
    await a.start();
    await b.start();
    assert.deepEqual([a.running, b.running], [true, false]);
    // Both campaign every third of the time to live; rounds keep things as they are.
    await timers.sleepers(2);
    assert.deepEqual(timers.asleep, [300, 300]);
    clock.advance(300);
    timers.fire();
    await settle();
    assert.deepEqual([a.running, b.running], [true, false]);
    await a.stop();
    assert.equal(a.running, false);
    // The lease is free at once: b's next round takes it.
    await timers.sleepers(1);
    clock.advance(300);
    timers.fire();
    await settle();
    assert.deepEqual([a.running, b.running], [false, true]);
    await b.stop();
    assert.deepEqual(journal.entries, ['a started', 'a stopped', 'b started', 'b stopped']);
    assert.equal(journal.running, 0);
  });

  it('stops the work when renewals fail past two thirds of the time to live, and resumes when the lease is back', async () => {
    const leases = new FlakyLeases(new LocalLeases());
    const clock = new ManualClock();
    const timers = new StepTimers();
    const journal = new Journal();
    const changes: boolean[] = [];
    const a = new Leader(leases, 'aggregation', 'a', journal.work('a'), {
      ttlMs: 900,
      now: () => clock.now(),
      timers,
      onChange: (running) => changes.push(running),
    });
    await a.start();
    leases.reachable = false;
    const round = async (): Promise<void> => {
      await timers.sleepers(1);
      clock.advance(300);
      timers.fire();
      await settle();
    };
    // One failed renewal (300 ms after the last success) is within the deadline: the work goes on.
    await round();
    assert.equal(a.running, true);
    // The second (600 ms) reaches it: the work stops before the lease could pass to another replica.
    await round();
    assert.equal(a.running, false);
    leases.reachable = true;
    await round();
    assert.equal(a.running, true);
    await a.stop();
    assert.deepEqual(changes, [true, false, true, false]);
    assert.deepEqual(journal.entries, ['a started', 'a stopped', 'a started', 'a stopped']);
  });

  it('a work that fails to start gives the lease up and is tried again next round', async () => {
    const leases = new LocalLeases();
    const clock = new ManualClock();
    const timers = new StepTimers();
    let attempts = 0;
    const a = new Leader(
      leases,
      'retention',
      'a',
      () => {
        if (++attempts === 1) throw new Error('store unreachable');
        return { stop: () => undefined };
      },
      { ttlMs: 900, now: () => clock.now(), timers },
    );
    await a.start();
    assert.equal(a.running, false);
    // Released: another holder could take it meanwhile.
    assert.equal(await leases.acquire('retention', 'b', 900), true);
    await leases.release('retention', 'b');
    await timers.sleepers(1);
    timers.fire();
    await settle();
    assert.deepEqual([a.running, attempts], [true, 2]);
    await a.stop();
  });
});

describe('leader election and held leases', () => {
  let server: PostgresServer;
  const stores: PostgresStore[] = [];
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
    await server?.stop();
  });

  const backends: [string, () => Promise<[Leases, Leases]>][] = [
    [
      'one process (memory, SQLite)',
      async () => {
        const leases = new LocalLeases();
        return [leases, leases];
      },
    ],
    [
      'two replicas on PostgreSQL',
      async () => {
        const url = await server.createDatabase(`leader_${stores.length}`);
        const a = await PostgresStore.open(url);
        const b = await PostgresStore.open(url);
        stores.push(a, b);
        return [a.leases, b.leases];
      },
    ],
  ];

  for (const [name, open] of backends) {
    it(`runs the work on exactly one and hands it over when that one stops: ${name}`, async () => {
      const [leasesA, leasesB] = await open();
      const journal = new Journal();
      const a = new Leader(leasesA, 'retention', 'a', journal.work('a'), { ttlMs: 300 });
      const b = new Leader(leasesB, 'retention', 'b', journal.work('b'), { ttlMs: 300 });
      await a.start();
      await b.start();
      assert.deepEqual([a.running, b.running], [true, false]);
      await a.stop();
      await until('b to take over', () => b.running);
      assert.equal(a.running, false);
      await b.stop();
      assert.deepEqual(journal.entries, ['a started', 'a stopped', 'b started', 'b stopped']);
    });

    it(`keeps a held lease while renewing and hands it over on release: ${name}`, async () => {
      const [leasesA, leasesB] = await open();
      const held = await HeldLease.take(leasesA, 'op/1', 'a', 1000);
      assert.ok(held !== undefined);
      // Several lifetimes pass: the renewals keep it.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      assert.equal(held.lost, false);
      assert.equal(await HeldLease.take(leasesB, 'op/1', 'b', 1000), undefined);
      await held.release();
      const taken = await HeldLease.take(leasesB, 'op/1', 'b', 150);
      assert.ok(taken !== undefined);
      await taken.release();
    });
  }

  it('a leader that stops renewing without releasing (it died) is replaced once its lease expires, and steps down when it wakes', async () => {
    const url = await server.createDatabase('leader_expiry');
    const storeA = await PostgresStore.open(url);
    const storeB = await PostgresStore.open(url);
    stores.push(storeA, storeB);
    const journal = new Journal();
    // a's rounds never come (its timers never fire): it took the lease once and went silent.
    const frozen = new StepTimers();
    const a = new Leader(storeA.leases, 'expiry', 'a', journal.work('a'), { ttlMs: 400, timers: frozen });
    const b = new Leader(storeB.leases, 'expiry', 'b', journal.work('b'), { ttlMs: 400 });
    await a.start();
    await b.start();
    assert.deepEqual([a.running, b.running], [true, false]);
    await until('b to take over after the lease expired', () => b.running);
    // a wakes up: its renewal is refused (b holds the lease now) and it stops its work.
    frozen.fire();
    await until('a to step down', () => !a.running);
    assert.equal(b.running, true);
    assert.deepEqual(journal.entries, ['a started', 'b started', 'a stopped']);
    await a.stop();
    await b.stop();
  });
});
