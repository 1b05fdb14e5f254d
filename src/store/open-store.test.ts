import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from './open-store.ts';

describe('openStore', () => {
  const dirs: string[] = [];
  after(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('opens the memory backend', async () => {
    const store = await openStore('memory', { dataDir: '/nonexistent/never-created' });
    assert.equal(store.backend, 'memory');
    assert.equal(existsSync('/nonexistent/never-created'), false);
    await store.close();
  });

  it('opens sqlite as fogbank.db under the data directory, creating it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fogbank-open-'));
    dirs.push(root);
    const dataDir = join(root, 'nested', '.fogbank');
    const store = await openStore('sqlite', { dataDir });
    try {
      assert.equal(store.backend, 'sqlite');
      await store.transact((tx) => tx.put('k', 'a', 1));
      assert.ok(existsSync(join(dataDir, 'fogbank.db')));
    } finally {
      await store.close();
    }
  });

  it('opens postgres:// and postgresql:// URLs, saying clearly when nothing answers there', async () => {
    for (const spec of ['postgres://fogbank@127.0.0.1:1/fogbank', 'postgresql://127.0.0.1:1/db']) {
      await assert.rejects(openStore(spec, { dataDir: '.' }), {
        name: 'StoreUnavailableError',
        message: `the store's database is unavailable: cannot reach ${spec}: connect ECONNREFUSED 127.0.0.1:1`,
      });
    }
  });

  it('rejects anything else by name', async () => {
    await assert.rejects(openStore('mysql://x', { dataDir: '.' }), {
      message: "unknown store 'mysql://x': expected sqlite, memory or postgres://…",
    });
    await assert.rejects(openStore('', { dataDir: '.' }), { message: "unknown store '': expected sqlite, memory or postgres://…" });
  });
});
