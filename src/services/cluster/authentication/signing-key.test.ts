import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MemoryStore, type Store } from '../../../store/index.ts';
import { removeTempDir, tempDir } from '../../../testing/temp.ts';
import { SIGNING_KEY_FILE, SIGNING_KEY_STORE_KIND, SigningKeySource } from './signing-key.ts';

/** as presents a memory store as another backend: `postgres` keeps the key in records, `sqlite` in the data directory. */
function as(backend: 'postgres' | 'sqlite', store: MemoryStore): Store {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'backend') return backend;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as Store;
}

describe('the ServiceAccount signing key', () => {
  it('is made once in the data directory (mode 0600) and read back by the next start', async () => {
    const dir = tempDir('signing-key');
    try {
      const memory = new MemoryStore();
      const store = as('sqlite', memory);
      const first = new SigningKeySource(store, dir);
      assert.equal(first.where, 'file');
      assert.equal(first.loaded, undefined);
      const key = await first.key();
      assert.equal(await first.key(), key, 'loaded once');
      const path = join(dir, SIGNING_KEY_FILE);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.match(readFileSync(path, 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
      const again = await new SigningKeySource(store, dir).key();
      assert.equal(again.kid, key.kid);
      // The apiserver's key id: base64url SHA-256 of the PKIX DER public key.
      assert.equal(
        key.kid,
        createHash('sha256')
          .update(key.publicKey.export({ type: 'spki', format: 'der' }))
          .digest('base64url'),
      );
      assert.deepEqual(await memory.list(SIGNING_KEY_STORE_KIND), [], 'nothing in the store');
    } finally {
      removeTempDir(dir);
    }
  });

  it('lives in memory with the memory store, data directory or not', async () => {
    assert.equal(new SigningKeySource(new MemoryStore(), join('/nonexistent', 'data-dir')).where, 'memory');
    const source = new SigningKeySource(new MemoryStore(), undefined);
    assert.equal(source.where, 'memory');
    assert.notEqual((await source.key()).kid, (await new SigningKeySource(new MemoryStore(), undefined).key()).kid);
  });

  it('is one record shared by the replicas of a shared store, and outlives a reset through a replica', async () => {
    const memory = new MemoryStore();
    const shared = as('postgres', memory);
    const dir = tempDir('signing-key-pg');
    try {
      const [a, b] = [new SigningKeySource(shared, dir), new SigningKeySource(shared, dir)];
      assert.equal(a.where, 'store');
      const [keyA, keyB] = await Promise.all([a.key(), b.key()]);
      assert.equal(keyA.kid, keyB.kid, 'the replica that lost the race took the winner’s key');
      assert.equal((await memory.list(SIGNING_KEY_STORE_KIND)).length, 1);
      assert.equal(existsSync(join(dir, SIGNING_KEY_FILE)), false, 'no file on a shared store');
      // A reset: the replicas holding the key write it back.
      await memory.replaceState((async function* () {})(), 0);
      await a.stateReplaced();
      const fresh = new SigningKeySource(shared, undefined);
      assert.equal((await fresh.key()).kid, keyA.kid);
      // A restore of a snapshot that carries another key: every replica takes it.
      const other = new SigningKeySource(new MemoryStore(), undefined);
      const restored = await other.key();
      await memory.replaceState(
        (async function* () {
          yield { kind: SIGNING_KEY_STORE_KIND, key: 'current', value: { pem: restored.pem }, createRevision: 1, revision: 1 };
        })(),
        1,
      );
      await a.stateReplaced();
      for (let i = 0; i < 10 && b.loaded?.kid !== restored.kid; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual([a.loaded?.kid, b.loaded?.kid], [restored.kid, restored.kid]);
      for (const source of [a, b, fresh]) source.close();
    } finally {
      removeTempDir(dir);
    }
  });
});
