import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { MemoryStore } from './memory-store.ts';
import { startPostgres, type PostgresServer } from '../testing/postgres-server.ts';
import { PostgresStore } from './postgres-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { CompactedError, ConflictError, StoreClosedError, type Change, type ListOptions, type Store } from './store.ts';

// One suite, every backend: the memory store defines the semantics, the others must match it.

interface Backend {
  readonly name: string;
  open(options?: { readonly changeRetention?: number }): Promise<Store>;
}

const tempDirs: string[] = [];
// One real PostgreSQL server for the whole file (started on first use), a fresh database per store.
let postgres: Promise<PostgresServer> | undefined;
let databases = 0;

const backends: Backend[] = [
  { name: 'memory', open: async (options = {}) => new MemoryStore(options) },
  {
    name: 'sqlite',
    open: async (options = {}) => {
      const dir = await mkdtemp(join(tmpdir(), 'fogbank-store-'));
      tempDirs.push(dir);
      // A small batch so compaction is observable with a few dozen writes.
      return SqliteStore.open(join(dir, 'fogbank.db'), { ...options, compactionBatch: 5 });
    },
  },
  {
    name: 'postgres',
    open: async (options = {}) => {
      postgres ??= startPostgres();
      const server = await postgres;
      const url = await server.createDatabase(`conformance_${++databases}`);
      return PostgresStore.open(url, { ...options, compactionBatch: 5 });
    },
  },
];

after(async () => {
  if (postgres !== undefined) await (await postgres).stop();
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

for (const backend of backends) {
  describe(`store conformance: ${backend.name}`, () => {
    const opened: Store[] = [];
    const open = async (options?: { readonly changeRetention?: number }): Promise<Store> => {
      const store = await backend.open(options);
      opened.push(store);
      return store;
    };
    const put = (store: Store, kind: string, key: string, value: unknown) => store.transact((tx) => tx.put(kind, key, value));
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    it('puts and gets records, with their revisions', async () => {
      const store = await open();
      assert.equal(await store.currentRevision(), 0);
      const written = await put(store, 'k', 'a', { name: 'a', nested: { list: [1, 2], flag: true } });
      assert.deepEqual(written, { kind: 'k', key: 'a', value: { name: 'a', nested: { list: [1, 2], flag: true } }, createRevision: 1, revision: 1 });
      assert.deepEqual(await store.get('k', 'a'), written);
      assert.equal(await store.get('k', 'missing'), undefined);
      assert.equal(await store.get('other', 'a'), undefined);
    });

    it('lists in key order with prefix, after and limit', async () => {
      const store = await open();
      for (const key of ['b', 'a/2', 'a/10', 'ab', 'a/1', 'c', 'a']) await put(store, 'k', key, { key });
      await put(store, 'other', 'a/3', {});
      const keys = async (options?: Parameters<Store['list']>[1]) => (await store.list('k', options)).map((r) => r.key);
      assert.deepEqual(await keys(), ['a', 'a/1', 'a/10', 'a/2', 'ab', 'b', 'c']);
      assert.deepEqual(await keys({ prefix: 'a/' }), ['a/1', 'a/10', 'a/2']);
      assert.deepEqual(await keys({ after: 'a/10' }), ['a/2', 'ab', 'b', 'c']);
      assert.deepEqual(await keys({ limit: 2 }), ['a', 'a/1']);
      assert.deepEqual(await keys({ prefix: 'a', after: 'a/10', limit: 2 }), ['a/2', 'ab']);
      assert.deepEqual(await keys({ prefix: 'zz' }), []);
      assert.deepEqual(await keys({ limit: 0 }), []);
      assert.deepEqual((await store.list('k', { prefix: 'b' }))[0]?.value, { key: 'b' });
      assert.deepEqual(await store.list('none'), []);
    });

    it('pages with after and limit see every key once, through deletes and re-creations', async () => {
      const store = await open();
      const all = Array.from({ length: 50 }, (_, i) => `p/${String(i).padStart(3, '0')}`);
      for (const key of all) await put(store, 'k', key, { key });
      await store.transact(async (tx) => {
        await tx.delete('k', 'p/010');
        await tx.delete('k', 'p/011');
      });
      await put(store, 'k', 'p/010', { key: 'again' });
      await put(store, 'k', 'q/000', {});
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.list('k', { prefix: 'p/', limit: 7, ...(after === undefined ? {} : { after }) });
        seen.push(...page.map((r) => r.key));
        if (page.length < 7) break;
        after = page.at(-1)!.key;
      }
      assert.deepEqual(
        seen,
        all.filter((key) => key !== 'p/011'),
      );
      assert.equal(await store.count('k', { prefix: 'p/' }), 49);
      assert.equal(await store.count('k'), 50);
      assert.deepEqual((await store.get('k', 'p/010'))?.value, { key: 'again' });
    });

    it('counts records, optionally under a prefix', async () => {
      const store = await open();
      for (const key of ['p/1', 'p/2', 'q/1']) await put(store, 'k', key, 1);
      assert.equal(await store.count('k'), 3);
      assert.equal(await store.count('k', { prefix: 'p/' }), 2);
      assert.equal(await store.count('none'), 0);
    });

    it('deletes records, returning what they held', async () => {
      const store = await open();
      await put(store, 'k', 'a', { v: 1 });
      await put(store, 'k', 'b', { v: 2 });
      const removed = await store.transact((tx) => tx.delete('k', 'a'));
      assert.deepEqual(removed, { kind: 'k', key: 'a', value: { v: 1 }, createRevision: 1, revision: 1 });
      assert.equal(await store.currentRevision(), 3);
      assert.equal(await store.get('k', 'a'), undefined);
      assert.deepEqual(
        (await store.list('k')).map((r) => r.key),
        ['b'],
      );
      assert.equal(await store.transact((tx) => tx.delete('k', 'a')), undefined);
      assert.equal(await store.currentRevision(), 3, 'deleting nothing takes no revision');
    });

    it('gives every write the next global revision, across kinds', async () => {
      const store = await open();
      const revisions = [(await put(store, 'a', 'x', 1)).revision, (await put(store, 'b', 'x', 1)).revision, (await put(store, 'a', 'y', 1)).revision];
      const batch = await store.transact(async (tx) => [(await tx.put('b', 'y', 1)).revision, (await tx.delete('a', 'x'))?.revision]);
      assert.deepEqual(revisions, [1, 2, 3]);
      assert.deepEqual(batch, [4, 1]);
      assert.equal(await store.currentRevision(), 5);
    });

    it('keeps createRevision across updates and starts afresh after a delete', async () => {
      const store = await open();
      await put(store, 'k', 'a', 1);
      await put(store, 'k', 'other', 1);
      const updated = await put(store, 'k', 'a', 2);
      assert.deepEqual([updated.createRevision, updated.revision], [1, 3]);
      assert.deepEqual(await store.get('k', 'a'), updated);
      await store.transact((tx) => tx.delete('k', 'a'));
      const recreated = await put(store, 'k', 'a', 3);
      assert.deepEqual([recreated.createRevision, recreated.revision], [5, 5]);
    });

    it('compares and swaps on expectRevision', async () => {
      const store = await open();
      const created = await store.transact((tx) => tx.put('k', 'a', 1, { expectRevision: 0 }));
      const updated = await store.transact((tx) => tx.put('k', 'a', 2, { expectRevision: created.revision }));
      assert.equal(updated.revision, 2);
      await assert.rejects(
        store.transact((tx) => tx.put('k', 'a', 3, { expectRevision: created.revision })),
        (error: unknown) => {
          assert.ok(error instanceof ConflictError);
          assert.deepEqual([error.kind, error.key, error.expected, error.actual], ['k', 'a', 1, 2]);
          assert.equal(error.message, 'conflict on k/a: expected revision 1, found 2');
          return true;
        },
      );
      await assert.rejects(
        store.transact((tx) => tx.put('k', 'a', 3, { expectRevision: 0 })),
        { name: 'ConflictError', expected: 0, actual: 2 },
      );
      await assert.rejects(
        store.transact((tx) => tx.put('k', 'new', 3, { expectRevision: 7 })),
        { expected: 7, actual: 0 },
      );
      await assert.rejects(
        store.transact((tx) => tx.delete('k', 'a', { expectRevision: 1 })),
        ConflictError,
      );
      assert.equal(await store.currentRevision(), 2, 'failed preconditions write nothing');
      assert.deepEqual((await store.get('k', 'a'))?.value, 2);
      assert.equal((await store.transact((tx) => tx.delete('k', 'a', { expectRevision: 2 })))?.revision, 2);
    });

    it("writes a batch as consecutive puts, and reads a batch with the transaction's own writes", async () => {
      const store = await open();
      await put(store, 'k', 'old', { v: 0 });
      const value = { text: 'quotes \' and \\ backslashes " and ünïcode', list: [1, 2] };
      const { written, seen } = await store.transact(async (tx) => {
        await tx.put('k', 'own', 'mine');
        const written = await tx.putMany([
          { kind: 'k', key: 'a', value, options: { expectRevision: 0 } },
          { kind: 'other', key: 'a', value: 2 },
          { kind: 'k', key: 'old', value: { v: 1 }, options: { expectRevision: 1 } },
          { kind: 'k', key: 'a', value: 'again', options: { expectRevision: 3 } },
        ]);
        const seen = await tx.getMany('k', ['a', 'missing', 'old', 'own', 'a']);
        return { written, seen };
      });
      assert.deepEqual(
        written.map((r) => [r.kind, r.key, r.createRevision, r.revision]),
        [
          ['k', 'a', 3, 3],
          ['other', 'a', 4, 4],
          ['k', 'old', 1, 5],
          ['k', 'a', 3, 6],
        ],
      );
      assert.deepEqual(written[0]!.value, value);
      assert.deepEqual(
        seen.map((r) => r?.value),
        ['again', undefined, { v: 1 }, 'mine', 'again'],
      );
      assert.equal(await store.currentRevision(), 6);
      assert.deepEqual((await store.get('k', 'a'))?.value, 'again');
      assert.deepEqual(
        (await store.changesSince(2)).map((c) => [c.type, c.kind, c.key, c.revision]),
        [
          ['created', 'k', 'a', 3],
          ['created', 'other', 'a', 4],
          ['updated', 'k', 'old', 5],
          ['updated', 'k', 'a', 6],
        ],
      );
      assert.deepEqual(await store.transact((tx) => tx.getMany('k', ['old', 'nope'])), [await store.get('k', 'old'), undefined]);
      assert.deepEqual(await store.transact((tx) => tx.putMany([])), []);
    });

    it('writes a batch of distinct keys: creates, updates, own-write preconditions, several megabytes', async () => {
      const store = await open();
      await put(store, 'k', 'existing', 'before');
      const big = 'x'.repeat(100_000);
      const written = await store.transact(async (tx) => {
        await tx.put('k', 'own', 1);
        return tx.putMany([
          { kind: 'k', key: 'new', value: 'n', options: { expectRevision: 0 } },
          { kind: 'k', key: 'existing', value: 'after' },
          { kind: 'k', key: 'own', value: 2, options: { expectRevision: 2 } },
          ...Array.from({ length: 50 }, (_, i) => ({ kind: 'big', key: String(i).padStart(2, '0'), value: { big, i } })),
        ]);
      });
      assert.deepEqual(
        written.slice(0, 3).map((r) => [r.key, r.value, r.createRevision, r.revision]),
        [
          ['new', 'n', 3, 3],
          ['existing', 'after', 1, 4],
          ['own', 2, 2, 5],
        ],
      );
      assert.equal(written.length, 53);
      assert.equal(await store.currentRevision(), 55);
      assert.deepEqual(
        (await store.changesSince(2)).slice(0, 3).map((c) => [c.type, c.key, c.revision]),
        [
          ['created', 'new', 3],
          ['updated', 'existing', 4],
          ['updated', 'own', 5],
        ],
      );
      assert.equal(await store.count('big'), 50);
      assert.deepEqual((await store.get('big', '49'))?.value, { big, i: 49 });
      assert.equal((await store.get('big', '49'))?.revision, 55);
    });

    it('undoes a failing batch alone, among concurrent transactions', async () => {
      const store = await open();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          store.transact(async (tx) => {
            await tx.putMany([
              { kind: 'k', key: `a-${String(i).padStart(2, '0')}`, value: i },
              { kind: 'k', key: `b-${String(i).padStart(2, '0')}`, value: i, options: { expectRevision: 0 } },
            ]);
            if (i % 3 === 0) throw new Error(`fail ${i}`);
            return i;
          }),
        ),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 'rejected' : 'fulfilled')),
      );
      const records = await store.list<number>('k');
      assert.equal(records.length, 16);
      assert.ok(records.every((record) => record.value % 3 !== 0));
      assert.deepEqual(
        records.map((r) => r.revision).sort((a, b) => a - b),
        Array.from({ length: 16 }, (_, i) => i + 1),
      );
      assert.deepEqual(
        (await store.changesSince(0)).map((c) => c.revision),
        Array.from({ length: 16 }, (_, i) => i + 1),
      );
    });

    it('refuses a batch whose precondition fails, and the transaction it ends writes nothing', async () => {
      const store = await open();
      await put(store, 'k', 'taken', 1);
      for (const batch of [
        [
          { kind: 'k', key: 'free', value: 1 },
          { kind: 'k', key: 'taken', value: 2, options: { expectRevision: 0 } },
          { kind: 'k', key: 'after', value: 3 },
        ],
        [
          { kind: 'k', key: 'free', value: 1 },
          { kind: 'k', key: 'free', value: 2, options: { expectRevision: 0 } },
        ],
      ]) {
        await assert.rejects(
          store.transact((tx) => tx.putMany(batch)),
          (error: unknown) => error instanceof ConflictError && error.expected === 0,
        );
        assert.equal(await store.currentRevision(), 1);
        assert.equal(await store.get('k', 'free'), undefined);
        assert.equal(await store.get('k', 'after'), undefined);
        assert.deepEqual(await store.changesSince(1), []);
      }
    });

    it('commits nothing when the transaction function throws', async () => {
      const store = await open();
      await put(store, 'k', 'kept', 1);
      const failure = new Error('boom');
      await assert.rejects(
        store.transact(async (tx) => {
          await tx.put('k', 'a', 1);
          await tx.put('k', 'kept', 2);
          await tx.delete('k', 'kept');
          throw failure;
        }),
        (error) => error === failure,
      );
      assert.equal(await store.currentRevision(), 1);
      assert.equal(await store.get('k', 'a'), undefined);
      assert.deepEqual((await store.get('k', 'kept'))?.value, 1);
      assert.deepEqual(await store.changesSince(1), []);
      assert.equal((await put(store, 'k', 'b', 1)).revision, 2, 'the rolled-back revisions are reused');
    });

    it("pages a transaction's list over its own deletions and writes", async () => {
      const store = await open();
      for (const key of ['a', 'b', 'c', 'd']) await put(store, 'k', key, `${key}0`);
      await put(store, 'other', 'x', 'x0');
      const seen = await store.transact(async (tx) => {
        await tx.delete('k', 'a');
        await tx.delete('k', 'b');
        await tx.put('k', 'e', 'e1');
        await tx.put('k', 'c', 'c1');
        const page = async (options: ListOptions) => (await tx.list('k', options)).map((r) => `${r.key}=${String(r.value)}`);
        return {
          first: await page({ limit: 2 }),
          next: await page({ after: 'c', limit: 2 }),
          all: await page({}),
          none: await page({ prefix: 'a' }),
          count: await tx.count('k'),
          untouched: (await tx.list('other', { limit: 1 })).map((r) => r.key),
          untouchedCount: await tx.count('other'),
        };
      });
      assert.deepEqual(seen, {
        first: ['c=c1', 'd=d0'],
        next: ['d=d0', 'e=e1'],
        all: ['c=c1', 'd=d0', 'e=e1'],
        none: [],
        count: 3,
        untouched: ['x'],
        untouchedCount: 1,
      });
    });

    it('lets a transaction read its own writes, while others see only committed state', async () => {
      const store = await open();
      await put(store, 'k', 'a', 'a0');
      await put(store, 'k', 'b', 'b0');
      const seen = await store.transact(async (tx) => {
        await tx.put('k', 'c', 'c1');
        await tx.put('k', 'a', 'a1');
        await tx.delete('k', 'b');
        return {
          a: (await tx.get('k', 'a'))?.value,
          b: await tx.get('k', 'b'),
          list: (await tx.list('k')).map((r) => `${r.key}=${String(r.value)}`),
          prefixed: (await tx.list('k', { prefix: 'c' })).map((r) => r.key),
          count: await tx.count('k'),
          outside: (await store.get('k', 'a'))?.value,
          outsideList: (await store.list('k')).map((r) => r.key),
          outsideCount: await store.count('k'),
          outsideRevision: await store.currentRevision(),
        };
      });
      assert.deepEqual(seen, {
        a: 'a1',
        b: undefined,
        list: ['a=a1', 'c=c1'],
        prefixed: ['c'],
        count: 2,
        outside: 'a0',
        outsideList: ['a', 'b'],
        outsideCount: 2,
        outsideRevision: 2,
      });
      assert.deepEqual(
        (await store.list('k')).map((r) => r.key),
        ['a', 'c'],
      );
    });

    it('rejects use of a transaction handle after its function returned', async () => {
      const store = await open();
      let leaked: Parameters<Parameters<Store['transact']>[0]>[0] | undefined;
      await store.transact(async (tx) => {
        leaked = tx;
      });
      await assert.rejects(leaked!.put('k', 'a', 1), /transaction has finished/);
      assert.equal(await store.get('k', 'a'), undefined);
    });

    it('serialises concurrent read-modify-write transactions', async () => {
      const store = await open();
      await Promise.all(
        Array.from({ length: 100 }, () =>
          store.transact(async (tx) => {
            const current = await tx.get<number>('k', 'counter');
            await Promise.resolve(); // yield inside the transaction, as real handlers do
            await tx.put('k', 'counter', (current?.value ?? 0) + 1, { expectRevision: current?.revision ?? 0 });
          }),
        ),
      );
      const counter = await store.get<number>('k', 'counter');
      assert.equal(counter?.value, 100);
      assert.equal(counter?.revision, 100);
    });

    it('undoes a failing transaction alone, among concurrent ones', async () => {
      const store = await open();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          store
            .transact(async (tx) => {
              await tx.put('k', `key-${String(i).padStart(2, '0')}`, i);
              if (i % 3 === 0) throw new Error(`fail ${i}`);
              return i;
            })
            // Acknowledged means committed: an outside read right after resolution sees the write.
            .then(async (value) => ({ value, visible: (await store.get('k', `key-${String(value).padStart(2, '0')}`))?.value })),
        ),
      );
      outcomes.forEach((outcome, i) => {
        if (i % 3 === 0) assert.deepEqual(outcome, { status: 'rejected', reason: new Error(`fail ${i}`) });
        else assert.deepEqual(outcome, { status: 'fulfilled', value: { value: i, visible: i } });
      });
      const records = await store.list<number>('k');
      assert.deepEqual(
        records.map((r) => r.value),
        Array.from({ length: 20 }, (_, i) => i).filter((i) => i % 3 !== 0),
      );
      assert.deepEqual(
        records.map((r) => r.revision),
        Array.from({ length: 13 }, (_, i) => i + 1),
      );
      assert.equal(await store.currentRevision(), 13);
      assert.deepEqual(
        (await store.changesSince(0)).map((c) => c.revision),
        Array.from({ length: 13 }, (_, i) => i + 1),
      );
    });

    it('publishes a change only once outside readers can see it', async () => {
      const store = await open();
      const reads: Promise<unknown>[] = [];
      const subscription = await store.subscribe(0, (change) => {
        // The read starts synchronously, inside the listener call.
        reads.push(store.get('k', change.key).then((record) => record?.value));
      });
      await Promise.all(Array.from({ length: 10 }, (_, i) => put(store, 'k', `key-${i}`, i)));
      assert.deepEqual(
        await Promise.all(reads),
        Array.from({ length: 10 }, (_, i) => i),
      );
      subscription.close();
    });

    it('records every write in the change feed', async () => {
      const store = await open();
      await put(store, 'a', 'x', { v: 1 });
      await put(store, 'b', 'y', { v: 2 });
      await put(store, 'a', 'x', { v: 3 });
      await store.transact((tx) => tx.delete('a', 'x'));
      const all = await store.changesSince(0);
      assert.deepEqual(all, [
        { type: 'created', kind: 'a', key: 'x', value: { v: 1 }, revision: 1, createRevision: 1 },
        { type: 'created', kind: 'b', key: 'y', value: { v: 2 }, revision: 2, createRevision: 2 },
        { type: 'updated', kind: 'a', key: 'x', value: { v: 3 }, revision: 3, createRevision: 1 },
        { type: 'deleted', kind: 'a', key: 'x', value: { v: 3 }, revision: 4, createRevision: 1 },
      ]);
      assert.deepEqual(await store.changesSince(2), all.slice(2));
      assert.deepEqual(
        (await store.changesSince(0, { kinds: ['a'] })).map((c) => c.revision),
        [1, 3, 4],
      );
      assert.deepEqual(
        (await store.changesSince(0, { kinds: ['a', 'b'], limit: 2 })).map((c) => c.revision),
        [1, 2],
      );
      assert.deepEqual(
        (await store.changesSince(1, { kinds: ['a'], limit: 1 })).map((c) => c.revision),
        [3],
      );
      assert.deepEqual(await store.changesSince(0, { kinds: [] }), []);
      assert.deepEqual(await store.changesSince(4), []);
    });

    it('compacts the feed and refuses to resume below it', async () => {
      const store = await open({ changeRetention: 10 });
      assert.equal(await store.oldestResumableRevision(), 0);
      for (let i = 0; i < 60; i++) await put(store, 'k', `key-${i % 7}`, i);
      const current = await store.currentRevision();
      const oldest = await store.oldestResumableRevision();
      assert.ok(oldest > 0, 'something was compacted');
      assert.ok(current - oldest >= 10, 'at least the retention is kept');
      await assert.rejects(store.changesSince(oldest - 1), (error: unknown) => {
        assert.ok(error instanceof CompactedError);
        assert.deepEqual([error.requested, error.oldest], [oldest - 1, oldest]);
        return true;
      });
      await assert.rejects(
        store.subscribe(0, () => {}),
        CompactedError,
      );
      const rest = await store.changesSince(oldest);
      assert.deepEqual(
        rest.map((c) => c.revision),
        Array.from({ length: current - oldest }, (_, i) => oldest + 1 + i),
      );
    });

    it('subscribes with the backlog first, then live changes', async () => {
      const store = await open();
      for (let i = 1; i <= 3; i++) await put(store, 'k', `k${i}`, i);
      const received: Change[] = [];
      const subscription = await store.subscribe(1, (change) => received.push(change));
      assert.deepEqual(
        received.map((c) => c.revision),
        [2, 3],
      );
      await put(store, 'k', 'k4', 4);
      await store.transact((tx) => tx.delete('k', 'k1'));
      assert.deepEqual(
        received.map((c) => `${c.type}:${c.key}@${c.revision}`),
        ['created:k2@2', 'created:k3@3', 'created:k4@4', 'deleted:k1@5'],
      );
      subscription.close();
      await put(store, 'k', 'k5', 5);
      assert.equal(received.length, 4, 'a closed subscription receives nothing more');
    });

    it('delivers every change exactly once when writes race the subscription', async () => {
      const store = await open();
      const total = 1500; // more than one backlog page
      const writes = Array.from({ length: total }, (_, i) => put(store, i % 2 === 0 ? 'even' : 'odd', `key-${i}`, i));
      await writes[600];
      const all: number[] = [];
      const odd: number[] = [];
      const subscriptions = await Promise.all([
        store.subscribe(0, (change) => all.push(change.revision)),
        store.subscribe(0, (change) => odd.push(change.revision), { kinds: ['odd'] }),
      ]);
      await Promise.all(writes);
      assert.deepEqual(
        all,
        Array.from({ length: total }, (_, i) => i + 1),
      );
      assert.deepEqual(
        odd,
        Array.from({ length: total / 2 }, (_, i) => 2 * i + 2),
      );
      for (const subscription of subscriptions) subscription.close();
    });

    it('filters subscriptions by kind, in the backlog and live', async () => {
      const store = await open();
      await put(store, 'a', '1', 1);
      await put(store, 'b', '1', 1);
      const received: string[] = [];
      const subscription = await store.subscribe(0, (change) => received.push(`${change.kind}@${change.revision}`), { kinds: ['b'] });
      await put(store, 'a', '2', 1);
      await put(store, 'b', '2', 1);
      assert.deepEqual(received, ['b@2', 'b@4']);
      subscription.close();
    });

    it('fails every call once closed', async () => {
      const store = await open();
      await put(store, 'k', 'a', 1);
      await store.close();
      await store.close();
      const calls: [string, () => Promise<unknown>][] = [
        ['get', () => store.get('k', 'a')],
        ['list', () => store.list('k')],
        ['count', () => store.count('k')],
        ['currentRevision', () => store.currentRevision()],
        ['transact', () => store.transact((tx) => tx.put('k', 'b', 1))],
        ['changesSince', () => store.changesSince(0)],
        ['subscribe', () => store.subscribe(0, () => {})],
        ['oldestResumableRevision', () => store.oldestResumableRevision()],
      ];
      for (const [name, call] of calls) {
        let promise: Promise<unknown>;
        try {
          promise = call();
        } catch (error) {
          assert.fail(`${name} threw synchronously instead of rejecting: ${String(error)}`);
        }
        await assert.rejects(promise, StoreClosedError, name);
      }
    });
  });
}
