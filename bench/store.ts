// bench/store.ts measures put+get throughput of each store backend against the memory backend in
// the same run (absolute numbers depend on the machine; the ratio is what to watch).
// Run: npx tsx bench/store.ts [operations]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../src/store/memory-store.ts';
import { startPostgres } from '../src/testing/postgres-server.ts';
import { PostgresStore } from '../src/store/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';

const OPERATIONS = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = 32;
const ROUNDS = 3; // the median of three damps noise from whatever else the machine is doing

// Shaped like a small compute resource, the typical record a request writes and reads back.
const template = (i: number) => ({
  kind: 'compute#instanceTemplate',
  id: String(1_000_000 + i),
  name: `template-${i}`,
  selfLink: `https://compute.example/projects/p/global/instanceTemplates/template-${i}`,
  properties: {
    machineType: 'e2-medium',
    disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '10' } }],
    networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT' }] }],
    labels: { env: 'bench', team: 'store' },
  },
});

/** putGet is one insert followed by reading the record back, as a create-then-get request pair does. */
async function putGet(store: Store, i: number): Promise<void> {
  const key = `p/global/template-${i}`;
  await store.transact((tx) => tx.put('compute.instanceTemplates', key, template(i)));
  const record = await store.get('compute.instanceTemplates', key);
  if (record === undefined) throw new Error(`lost ${key}`);
}

async function measure(store: Store, concurrency: number): Promise<number> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < OPERATIONS) await putGet(store, next++);
  };
  for (let i = 0; i < 2_000; i++) await putGet(store, -1 - i); // warm-up: JIT, page cache
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return OPERATIONS / ((performance.now() - started) / 1000);
}

const dir = await mkdtemp(join(tmpdir(), 'fogbank-bench-'));
// A temporary local PostgreSQL with synchronous_commit=off: the durability of SQLite's
// synchronous=NORMAL (committed to the OS, fsync later).
const postgres = await startPostgres({ synchronous_commit: 'off' });
let databases = 0;
try {
  for (const concurrency of [1, CONCURRENCY]) {
    const backends: [string, (round: number) => Store | Promise<Store>][] = [
      ['memory', () => new MemoryStore()],
      ['sqlite', (round) => SqliteStore.open(join(dir, `cached-${concurrency}-${round}.db`))],
      ['sqlite (no record cache)', (round) => SqliteStore.open(join(dir, `uncached-${concurrency}-${round}.db`), { recordCacheSize: 0 })],
      ['postgres', async () => PostgresStore.open(await postgres.createDatabase(`bench_${++databases}`))],
    ];
    console.log(`put+get, ${OPERATIONS} operations, ${concurrency} in flight, median of ${ROUNDS}`);
    let baseline = 0;
    for (const [name, open] of backends) {
      const rounds: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const store = await open(round);
        rounds.push(await measure(store, concurrency));
        await store.close();
      }
      const opsPerSecond = rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
      baseline ||= opsPerSecond;
      console.log(`  ${name.padEnd(26)} ${Math.round(opsPerSecond).toLocaleString('en').padStart(10)} ops/s  ${(opsPerSecond / baseline).toFixed(2)}x memory`);
    }
  }
} finally {
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
