import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HeldLease } from './held-lease.ts';
import { Leader } from './leader.ts';
import { LocalLeases } from './local-leases.ts';
import { startPostgres, type PostgresServer } from './postgres-server.fixture.ts';
import { PostgresStore } from './postgres-store.ts';
import type { Leases } from './store.ts';

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

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
    ['one process (memory, SQLite)', async () => {
      const leases = new LocalLeases();
      return [leases, leases];
    }],
    ['two replicas on PostgreSQL', async () => {
      const url = await server.createDatabase(`leader_${stores.length}`);
      const a = await PostgresStore.open(url);
      const b = await PostgresStore.open(url);
      stores.push(a, b);
      return [a.leases, b.leases];
    }],
  ];

  for (const [name, open] of backends) {
    it(`elects exactly one leader and replaces it when it stops: ${name}`, async () => {
      const [leasesA, leasesB] = await open();
      const a = new Leader(leasesA, 'retention', 'a', { ttlMs: 300 });
      const b = new Leader(leasesB, 'retention', 'b', { ttlMs: 300 });
      await a.start();
      await b.start();
      assert.deepEqual([a.isLeader, b.isLeader], [true, false]);
      await a.stop();
      await until('b to take over', () => b.isLeader);
      assert.equal(a.isLeader, false);
      await b.stop();
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
});
