import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { Checkpointer } from './sqlite-checkpointer.ts';

it('gives checkpoints back to SQLite when its thread cannot open the database', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fogbank-checkpointer-'));
  const writer = new Database(join(dir, 'fogbank.db'));
  try {
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    // A directory is no database: the thread fails as it starts.
    const checkpointer = new Checkpointer(dir, writer);
    for (let i = 0; i < 16; i++) checkpointer.committed();
    const deadline = Date.now() + 30_000;
    while (writer.pragma('wal_autocheckpoint', { simple: true }) !== 1000) {
      assert.ok(Date.now() < deadline, 'the automatic checkpoint was never turned back on');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The failed thread is gone: closing does not wait for it.
    await checkpointer.close();
  } finally {
    writer.close();
    await rm(dir, { recursive: true, force: true });
  }
});
