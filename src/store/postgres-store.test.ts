import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Readable } from 'node:stream';
import { SchemaTooNewError } from './migrations.ts';
import { migratePostgres, POSTGRES_MIGRATIONS } from './postgres-migrations.ts';
import { startPostgres, type PostgresServer } from '../testing/postgres-server.ts';
import { PostgresStore } from './postgres-store.ts';
import { ConflictError, StoreUnavailableError, type Change, type Store } from './store.ts';

// What only a store shared by several processes can get wrong. Each PostgresStore here stands
// for one replica: its own pool, its own LISTEN connection, one database between them.

/** until polls `check` (bounded: 20 s) and fails with `what` if it never holds. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('postgres store across replicas', () => {
  let server: PostgresServer;
  let databases = 0;
  const opened: Store[] = [];
  const freshDatabase = () => server.createDatabase(`replicas_${++databases}`);
  const open = async (url: string, options: Parameters<typeof PostgresStore.open>[1] = {}): Promise<PostgresStore> => {
    const store = await PostgresStore.open(url, { pollMs: 200, ...options });
    opened.push(store);
    return store;
  };
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await Promise.all(opened.map((store) => store.close().catch(() => undefined)));
    await server?.stop();
  });

  it('shows a write through one replica to the reads and the subscribers of another', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    const seen: Change[] = [];
    const subscription = await b.subscribe(0, (change) => seen.push(change));
    const written = await a.transact((tx) => tx.put('k', 'x', { from: 'a' }));
    assert.deepEqual(await b.get('k', 'x'), written);
    assert.equal(await b.currentRevision(), 1);
    await until('the change to reach b', () => seen.length === 1);
    assert.deepEqual(seen, [{ type: 'created', kind: 'k', key: 'x', value: { from: 'a' }, revision: 1, createRevision: 1 }]);
    subscription.close();
  });

  it('assigns revisions in commit order with no gaps, whichever replica writes', async () => {
    const url = await freshDatabase();
    const replicas = [await open(url), await open(url), await open(url)];
    const feeds: number[][] = [[], [], []];
    const subscriptions = await Promise.all(replicas.map((store, i) => store.subscribe(0, (change) => feeds[i]!.push(change.revision))));
    const perReplica = 60;
    const acknowledged = await Promise.all(
      replicas.flatMap((store, r) => Array.from({ length: perReplica }, (_, i) => store.transact((tx) => tx.put('k', `r${r}-${i}`, i)))),
    );
    const total = replicas.length * perReplica;
    assert.deepEqual(
      acknowledged.map((record) => record.revision).sort((x, y) => x - y),
      Array.from({ length: total }, (_, i) => i + 1),
    );
    for (const feed of feeds) await until('every change on every replica', () => feed.length >= total);
    // Every replica saw every revision exactly once, in order.
    for (const feed of feeds)
      assert.deepEqual(
        feed,
        Array.from({ length: total }, (_, i) => i + 1),
      );
    for (const subscription of subscriptions) subscription.close();
  });

  it('loses no update when 8 writers on two replicas compare-and-swap one counter', async () => {
    const url = await freshDatabase();
    const replicas = [await open(url), await open(url)];
    const increments = 25;
    let conflicts = 0;
    // Each writer reads outside any transaction and writes with the revision it read, retrying
    // on conflict: the pattern of an API client doing read-modify-write with a fingerprint.
    const writer = async (store: Store): Promise<void> => {
      for (let done = 0; done < increments; ) {
        const current = await store.get<number>('k', 'counter');
        try {
          await store.transact((tx) => tx.put('k', 'counter', (current?.value ?? 0) + 1, { expectRevision: current?.revision ?? 0 }));
          done++;
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
          conflicts++;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => writer(replicas[i % 2]!)));
    assert.equal((await replicas[0]!.get<number>('k', 'counter'))?.value, 8 * increments);
    assert.equal((await replicas[1]!.get<number>('k', 'counter'))?.value, 8 * increments);
    assert.ok(conflicts > 0, 'the writers really raced');
  });

  it('keeps keys and values with quotes, backslashes and non-ASCII intact in grouped commits', async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const odd = ["it's", 'back\\slash', "$1 'quoted' $$", 'ünï €', "e\\'", 'tab\tnewline\n', '🙂'];
    // Concurrent transactions share one commit, their writes sent as literals in one text.
    await Promise.all(odd.map((text, i) => store.transact((tx) => tx.put('k', text, { text, i }))));
    // A replica opened afterwards loads its watch cache from the tables: what the database holds.
    const later = await open(url);
    for (const reader of [store, later]) {
      for (const [i, text] of odd.entries()) assert.deepEqual((await reader.get('k', text))?.value, { text, i });
      assert.deepEqual((await reader.list('k')).map((record) => record.key).sort(), [...odd].sort());
      assert.deepEqual((await reader.changesSince(0)).map((change) => change.key).sort(), [...odd].sort());
    }
  });

  it('migrates exactly once when replicas start at the same moment', async () => {
    const url = await freshDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(url)));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = (await client.query('SELECT version FROM fogbank_schema ORDER BY version')).rows;
      assert.deepEqual(
        rows,
        POSTGRES_MIGRATIONS.map((migration) => ({ version: migration.version })),
      );
    } finally {
      await client.end();
    }
    assert.equal((await stores[3]!.transact((tx) => tx.put('k', 'a', 1))).revision, 1);
  });

  it('upgrades a database an older fogbank made, keeping its records', async () => {
    const url = await freshDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      assert.deepEqual(await migratePostgres(client, url, POSTGRES_MIGRATIONS.slice(0, 1)), [1]);
      await client.query(`INSERT INTO fogbank_records (kind, key, value, create_revision, revision) VALUES ('k', 'old', '"kept"', 1, 1)`);
      await client.query(`UPDATE fogbank_meta SET value = 1 WHERE key = 'revision'`);
    } finally {
      await client.end();
    }
    const store = await open(url);
    assert.equal((await store.get('k', 'old'))?.value, 'kept');
    assert.equal(await store.files.write('fam/new', Readable.from([Buffer.from('file')])), 4);
  });

  it('refuses a database written by a newer fogbank', async () => {
    const url = await freshDatabase();
    await (await PostgresStore.open(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO fogbank_schema (version, name) VALUES (7, 'from the future')");
    await client.end();
    await assert.rejects(PostgresStore.open(url), (error: unknown) => {
      assert.ok(error instanceof SchemaTooNewError);
      assert.equal(
        error.message,
        `the database ${url} has schema version 7, but this fogbank only knows versions up to ${POSTGRES_MIGRATIONS.length}: upgrade fogbank, or point --store at another database`,
      );
      return true;
    });
  });

  it('says clearly when the database cannot be reached at start', async () => {
    await assert.rejects(PostgresStore.open('postgres://fogbank:secret@127.0.0.1:1/fogbank', { connectTimeoutMs: 2000 }), (error: unknown) => {
      assert.ok(error instanceof StoreUnavailableError);
      assert.equal(
        error.message,
        "the store's database is unavailable: cannot reach postgres://fogbank:***@127.0.0.1:1/fogbank: connect ECONNREFUSED 127.0.0.1:1",
      );
      return true;
    });
  });

  it('grants a lease to one holder at a time, and to another once it expires or is released', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    assert.equal(a.leases.shared, true);
    assert.equal(await a.leases.acquire('op/1', 'replica-a', 60_000), true);
    assert.equal(await b.leases.acquire('op/1', 'replica-b', 60_000), false);
    assert.equal(await a.leases.acquire('op/1', 'replica-a', 60_000), true, 'the holder renews');
    await a.leases.release('op/1', 'replica-a');
    assert.equal(await b.leases.acquire('op/1', 'replica-b', 1), true, 'released: another takes it');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await a.leases.acquire('op/1', 'replica-a', 60_000), true, 'expired: another takes it');
    await b.leases.release('op/1', 'replica-b');
    assert.equal(await b.leases.acquire('op/1', 'replica-b', 60_000), false, 'releasing a lease one does not hold changes nothing');
  });

  it('delivers changes whose notifications were lost, from the changes table', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url, { pollMs: 60_000 });
    const seen: number[] = [];
    const subscription = await b.subscribe(0, (change) => seen.push(change.revision));
    // Cut every LISTEN connection: notifications sent meanwhile are gone for good.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN fogbank_changes'");
    await admin.end();
    for (let i = 0; i < 5; i++) await a.transact((tx) => tx.put('k', `k${i}`, i));
    // b re-establishes LISTEN and then reads what it missed, without waiting for its (long) poll.
    await until('b to catch up after re-listening', () => seen.length === 5);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    subscription.close();
  });

  it('answers StoreUnavailableError while the database is down, and recovers when it is back', async () => {
    const url = await freshDatabase();
    const store = await open(url, { connectTimeoutMs: 1000 });
    const seen: number[] = [];
    const subscription = await store.subscribe(0, (change) => seen.push(change.revision));
    await store.transact((tx) => tx.put('k', 'before', 1));
    await server.kill();
    await assert.rejects(store.get('k', 'before'), StoreUnavailableError);
    await assert.rejects(
      store.transact((tx) => tx.put('k', 'during', 1)),
      StoreUnavailableError,
    );
    assert.equal((await store.health()).ok, false);
    await server.restart();
    await until('the store to answer again', async () => (await store.get('k', 'before').catch(() => undefined)) !== undefined);
    assert.equal((await store.transact((tx) => tx.put('k', 'after', 1))).revision, 2, 'the failed write took no revision');
    await until('health to recover', async () => (await store.health()).ok);
    await until('the subscriber to see the write after the outage', () => seen.length === 2);
    assert.deepEqual(seen, [1, 2]);
    subscription.close();
  });
  it("reads another replica's write as soon as it is committed, from the watch cache, with no notification to wait for", async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url, { pollMs: 60_000 });
    assert.equal(await b.get('k', 'n'), undefined);
    // Cut every LISTEN connection: b hears of nothing and must find each commit when it reads.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN fogbank_changes'");
    await admin.end();
    for (let i = 1; i <= 20; i++) {
      const written = await a.transact((tx) => tx.put('k', 'n', { i }));
      assert.deepEqual(await b.get('k', 'n'), written, `read ${i} on b`);
      assert.deepEqual(
        (await b.list('k')).map((record) => record.value),
        [{ i }],
      );
      assert.equal(await b.count('k'), 1);
    }
    // A transaction on b reads a's last commit too (under the write lock, the cache catches up first).
    const last = await a.transact((tx) => tx.put('k', 'n', { i: 'last' }));
    assert.deepEqual(await b.transact((tx) => tx.get('k', 'n')), last);
    const deleted = await b.transact((tx) => tx.delete('k', 'n', { expectRevision: last.revision }));
    assert.deepEqual(deleted, last);
    assert.equal(await a.get('k', 'n'), undefined);
  });

  it('reloads the watch cache when another replica replaces the state', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    await a.transact((tx) => tx.putMany([0, 1, 2].map((i) => ({ kind: 'k', key: `old${i}`, value: i }))));
    assert.equal(await b.count('k'), 3);
    async function* records() {
      yield { kind: 'k', key: 'new', value: 'restored', createRevision: 7, revision: 9 };
    }
    const revision = await a.replaceState(records(), 9);
    assert.equal(revision, 10);
    assert.deepEqual(await b.list('k'), [{ kind: 'k', key: 'new', value: 'restored', createRevision: 7, revision: 9 }]);
    assert.equal(await b.currentRevision(), 10);
    const next = await b.transact((tx) => tx.put('k', 'new', 'written on b', { expectRevision: 9 }));
    assert.deepEqual(next, { kind: 'k', key: 'new', value: 'written on b', createRevision: 7, revision: 11 });
    assert.deepEqual(await a.get('k', 'new'), next);
  });
});
