import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from './sqlite-store.ts';

const FIXTURE = fileURLToPath(new URL('./durability-writer.fixture.ts', import.meta.url));
const KILL_AFTER = 300;

it('keeps every acknowledged write when the process is killed with SIGKILL', async () => {
  await probe([]);
});

it('keeps every acknowledged write and its value when killed while the feed is compacted every few commits', async () => {
  // Compaction moves values from the change rows into the records: a kill at any point keeps them readable.
  await probe(['50']);
});

async function probe(extra: readonly string[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fogbank-durability-'));
  const file = join(dir, 'fogbank.db');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, file, '20000', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const acknowledged: string[] = [];
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) {
      acknowledged.push(line);
      if (acknowledged.length === KILL_AFTER) child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL', 'the writer was killed mid-stream, not finished');
    assert.ok(acknowledged.length >= KILL_AFTER);

    const store = SqliteStore.open(file);
    try {
      const records = await store.list<{ i: number }>('durability');
      for (const record of records) assert.equal(`item-${String(record.value.i).padStart(6, '0')}`, record.key);
      const present = new Set(records.map((record) => record.key));
      const missing = acknowledged.filter((key) => !present.has(key));
      assert.deepEqual(missing, [], 'acknowledged keys lost');
      // Each transaction wrote an item and the `last` marker: both or neither survived.
      const last = await store.get<{ i: number }>('durability-last', 'last');
      assert.equal(last?.value.i, present.size - 1);
      assert.ok((await store.currentRevision()) >= 2 * acknowledged.length);
      assert.equal(await store.currentRevision(), 2 * present.size);
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
