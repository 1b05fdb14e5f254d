import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS, SchemaTooNewError, migrate, schemaVersion, type Migration } from './migrations.ts';
import { SqliteStore } from './sqlite-store.ts';

// What only a file-backed store can get wrong: state across reopen, and the schema history.

describe('sqlite store on disk', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fogbank-sqlite-'));
    file = join(dir, 'fogbank.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps records, the revision and the change feed across reopen', async () => {
    const first = SqliteStore.open(file);
    await first.transact(async (tx) => {
      await tx.put('k', 'a', { v: 1 });
      await tx.put('k', 'b', { v: 2 });
    });
    await first.transact((tx) => tx.put('k', 'a', { v: 3 }));
    await first.transact((tx) => tx.delete('k', 'b'));
    const feed = await first.changesSince(0);
    await first.close();

    const second = SqliteStore.open(file);
    try {
      assert.equal(await second.currentRevision(), 4);
      assert.deepEqual(await second.get('k', 'a'), { kind: 'k', key: 'a', value: { v: 3 }, createRevision: 1, revision: 3 });
      assert.equal(await second.get('k', 'b'), undefined);
      assert.deepEqual(await second.changesSince(0), feed);
      assert.equal((await second.transact((tx) => tx.put('k', 'c', 1))).revision, 5);
    } finally {
      await second.close();
    }
  });

  it('keeps the compaction point across reopen', async () => {
    const first = SqliteStore.open(file, { changeRetention: 5, compactionBatch: 2 });
    for (let i = 0; i < 30; i++) await first.transact((tx) => tx.put('k', 'counter', i));
    const oldest = await first.oldestResumableRevision();
    assert.ok(oldest > 0);
    await first.close();
    const second = SqliteStore.open(file, { changeRetention: 5, compactionBatch: 2 });
    try {
      assert.equal(await second.oldestResumableRevision(), oldest);
      assert.equal((await second.changesSince(oldest))[0]?.revision, oldest + 1);
    } finally {
      await second.close();
    }
  });

  it('reads correct values whether or not the record cache holds them', async () => {
    const store = SqliteStore.open(file, { recordCacheSize: 2 });
    try {
      for (let i = 0; i < 5; i++) await store.transact((tx) => tx.put('k', `r${i}`, { i, version: 1 }));
      await store.transact((tx) => tx.put('k', 'r0', { i: 0, version: 2 }));
      await store.transact((tx) => tx.delete('k', 'r4'));
      const read = async () => Promise.all([0, 1, 2, 3, 4].map(async (i) => (await store.get<{ version: number }>('k', `r${i}`))?.value.version));
      assert.deepEqual(await read(), [2, 1, 1, 1, undefined]);
      assert.deepEqual(await read(), [2, 1, 1, 1, undefined], 'again, now partly from the cache');
      assert.deepEqual(
        (await store.list<{ version: number }>('k')).map((r) => r.value.version),
        [2, 1, 1, 1],
      );
    } finally {
      await store.close();
    }
  });

  it('answers a cached get with the committed record while a write to it is in flight, and the new one once it commits', async () => {
    const store = SqliteStore.open(file);
    try {
      await store.transact((tx) => tx.put('k', 'a', { v: 1 }));
      assert.deepEqual((await store.get('k', 'a'))?.value, { v: 1 });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const committing = store.transact(async (tx) => {
        await tx.put('k', 'a', { v: 2 });
        written();
        await held;
      });
      await wrote;
      assert.deepEqual((await store.get('k', 'a'))?.value, { v: 1 }, 'uncommitted: still the committed value');
      release();
      await committing;
      assert.deepEqual(await store.get('k', 'a'), { kind: 'k', key: 'a', value: { v: 2 }, createRevision: 1, revision: 2 });
      await assert.rejects(
        store.transact(async (tx) => {
          await tx.put('k', 'a', { v: 3 });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.deepEqual((await store.get('k', 'a'))?.value, { v: 2 }, 'a rolled-back write leaves the cached record as it was');
      await store.transact((tx) => tx.delete('k', 'a'));
      assert.equal(await store.get('k', 'a'), undefined);
    } finally {
      await store.close();
    }
  });

  it('lets a transaction read what an earlier one of the same commit group wrote, kept or rolled back, over the cached record', async () => {
    const store = SqliteStore.open(file);
    try {
      await store.transact((tx) => tx.put('k', 'x', { v: 1 }));
      assert.deepEqual((await store.get('k', 'x'))?.value, { v: 1 });
      // Transactions queued in one turn commit as one group.
      const [, seen] = await Promise.all([store.transact((tx) => tx.put('k', 'x', { v: 2 })), store.transact(async (tx) => (await tx.get('k', 'x'))?.value)]);
      assert.deepEqual(seen, { v: 2 });
      const [refused, after] = await Promise.allSettled([
        store.transact(async (tx) => {
          await tx.put('k', 'x', { v: 3 });
          throw new Error('no');
        }),
        store.transact(async (tx) => (await tx.get('k', 'x'))?.value),
      ]);
      assert.equal(refused.status, 'rejected');
      assert.deepEqual(after, { status: 'fulfilled', value: { v: 2 } });
      assert.deepEqual((await store.get('k', 'x'))?.value, { v: 2 });
    } finally {
      await store.close();
    }
  });

  it('refuses values that JSON cannot hold', async () => {
    const store = SqliteStore.open(file);
    try {
      await assert.rejects(
        store.transact((tx) => tx.put('k', 'a', undefined)),
        {
          name: 'TypeError',
          message: 'the value of k/a is not JSON-serialisable',
        },
      );
      assert.equal(await store.currentRevision(), 0);
    } finally {
      await store.close();
    }
  });

  it('writes a value once, in its change row, and moves it into the record before the feed is compacted past it', async () => {
    const store = SqliteStore.open(file, { changeRetention: 3, compactionBatch: 1, recordCacheSize: 0 });
    try {
      for (const name of ['a', 'b', 'c', 'd']) await store.transact((tx) => tx.put('k', name, { name }));
      await store.transact((tx) => tx.put('k', 'a', { name: 'a2' }));
      await store.transact((tx) => tx.delete('k', 'd'));
      await store.transact((tx) => tx.put('k', 'e', { name: 'e' }));
      // Revision 7: the feed was trimmed to the last three changes (5, 6, 7) at revision 7.
      assert.equal(await store.oldestResumableRevision(), 4);
      assert.deepEqual(
        (await store.list<{ name: string }>('k')).map((record) => [record.key, record.value.name, record.revision]),
        [
          ['a', 'a2', 5],
          ['b', 'b', 2],
          ['c', 'c', 3],
          ['e', 'e', 7],
        ],
      );
      assert.deepEqual(
        (await store.changesSince(4)).map((change) => [change.type, change.key, change.value]),
        [
          ['updated', 'a', { name: 'a2' }],
          ['deleted', 'd', { name: 'd' }],
          ['created', 'e', { name: 'e' }],
        ],
      );
      const exported = await store.exportState(async (_revision, records) => {
        const all: unknown[] = [];
        for await (const record of records()) all.push(record.value);
        return all;
      });
      assert.deepEqual(exported, [{ name: 'a2' }, { name: 'b' }, { name: 'c' }, { name: 'e' }]);
    } finally {
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      // b and c were compacted out of the feed: their records hold the value now; a and e still point at their change rows.
      const raw = db.prepare<[], { key: string; value: string }>("SELECT key, value FROM records WHERE kind = 'k' ORDER BY key").all();
      assert.deepEqual(raw, [
        { key: 'a', value: '' },
        { key: 'b', value: '{"name":"b"}' },
        { key: 'c', value: '{"name":"c"}' },
        { key: 'e', value: '' },
      ]);
    } finally {
      db.close();
    }
    const reopened = SqliteStore.open(file, { recordCacheSize: 0 });
    try {
      assert.deepEqual(await reopened.get('k', 'a'), { kind: 'k', key: 'a', value: { name: 'a2' }, createRevision: 1, revision: 5 });
      assert.deepEqual((await reopened.get('k', 'b'))?.value, { name: 'b' });
      await reopened.transact(async (tx) => assert.deepEqual((await tx.delete('k', 'e'))?.value, { name: 'e' }));
      assert.deepEqual(
        (await reopened.changesSince(7)).map((change) => [change.type, change.key, change.value]),
        [['deleted', 'e', { name: 'e' }]],
      );
    } finally {
      await reopened.close();
    }
  });

  it('runs each migration once', async () => {
    const db = new Database(file);
    try {
      assert.deepEqual(migrate(db, file), [1, 2]);
      assert.deepEqual(migrate(db, file), []);
      assert.equal(schemaVersion(db), MIGRATIONS.at(-1)?.version);
      let runs = 0;
      const next: Migration[] = [...MIGRATIONS, { version: 3, name: 'count runs', up: () => void runs++ }];
      assert.deepEqual(migrate(db, file, next), [3]);
      assert.deepEqual(migrate(db, file, next), []);
      assert.equal(runs, 1);
      assert.equal(schemaVersion(db), 3);
    } finally {
      db.close();
    }
  });

  it('leaves the schema untouched when a migration fails', async () => {
    const db = new Database(file);
    try {
      migrate(db, file);
      const broken: Migration[] = [
        ...MIGRATIONS,
        {
          version: 3,
          name: 'fails half-way',
          up(target) {
            target.exec('CREATE TABLE extra (x)');
            throw new Error('migration failed');
          },
        },
      ];
      assert.throws(() => migrate(db, file, broken), /migration failed/);
      assert.equal(schemaVersion(db), 2);
      assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").pluck().get(), 0);
    } finally {
      db.close();
    }
  });

  it('keeps the write-ahead log bounded under a steady stream of commits, checkpointing off the event loop', async () => {
    const store = SqliteStore.open(file);
    const value = { text: 'x'.repeat(8000) };
    const walBytes = async (): Promise<number> => (await stat(`${file}-wal`)).size;
    try {
      // About 24 MiB of log in all: six times SQLite's 4 MiB checkpoint threshold.
      for (let i = 0; i < 3000; i++) await store.transact((tx) => tx.put('k', `r${i % 50}`, value));
      const log = await walBytes();
      assert.ok(log < 12 * 1024 * 1024, `the log has ${log} bytes: it never started over`);
      assert.equal((await store.list('k')).length, 50);
      assert.equal(await store.currentRevision(), 3000);
    } finally {
      await store.close();
    }
    const reopened = SqliteStore.open(file);
    try {
      assert.deepEqual((await reopened.get('k', 'r49'))?.value, value);
      assert.equal(await reopened.currentRevision(), 3000);
    } finally {
      await reopened.close();
    }
  });

  it('refuses to open a database from a newer fogbank', async () => {
    await SqliteStore.open(file).close();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = 99 WHERE key = 'schema_version'").run();
    db.close();
    assert.throws(
      () => SqliteStore.open(file),
      (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.equal(
          error.message,
          `the database ${file} has schema version 99, but this fogbank only knows versions up to 2: ` +
            'upgrade fogbank, or point --data-dir at another directory',
        );
        return true;
      },
    );
  });
});
