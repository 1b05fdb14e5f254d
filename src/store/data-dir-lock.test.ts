import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startFogbank } from '../testing/fogbank.ts';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'fogbank-lock-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('lockDataDir', () => {
  it('one holder at a time, even within one process; release lets the next in', () => {
    const lock = lockDataDir(dir);
    assert.throws(
      () => lockDataDir(dir),
      (error: unknown) =>
        error instanceof DataDirInUseError &&
        error.pid === process.pid &&
        error.message === `the data directory ${dir} is in use by another fogbank (pid ${process.pid}); stop it or start with another --data-dir`,
    );
    lock.release();
    lockDataDir(dir).release();
  });

  it('startFogbank refuses a data directory another server holds, and close releases it', async () => {
    const first = await startFogbank({ store: 'sqlite', dataDir: join(dir, 'server'), adminToken: 'tok' });
    await assert.rejects(startFogbank({ store: 'sqlite', dataDir: join(dir, 'server'), adminToken: 'tok' }), DataDirInUseError);
    await first.close();
    const second = await startFogbank({ store: 'sqlite', dataDir: join(dir, 'server'), adminToken: 'tok' });
    await second.close();
  });
});
