import pg from 'pg';
import { subscribeWithBacklog } from './change-hub.ts';
import { GroupCommit } from './group-commit.ts';
import { connectionConfig, poolConfig, redactUrl, unavailableOr, type PostgresConnectionOptions } from './postgres-connection.ts';
import { PostgresFeed } from './postgres-feed.ts';
import { PostgresLeases } from './postgres-leases.ts';
import { migratePostgres } from './postgres-migrations.ts';
import { groupWrites, insertRecords, REPLACE_STATE_START, replaceStateEnd, selectRecordsAfter, SNAPSHOT_START } from './postgres-sql.ts';
import { BEGIN_NEXT, BEGIN_WRITE, commitWrite, queryAll, selectChanges, selectMeta } from './postgres-sql.ts';
import { PostgresTransaction, type StagedWrite } from './postgres-transaction.ts';
import { RecentChanges } from './recent-changes.ts';
import { RevisionReads } from './postgres-revision-reads.ts';
import { WatchCache } from './postgres-watch-cache.ts';
import { PostgresFileBytes } from './postgres-file-bytes.ts';
import { PostgresUploadBytes } from './postgres-upload-bytes.ts';
import { DEFAULT_CHANGE_RETENTION, DEFAULT_COMPACTION_BATCH, type QueuedTransaction } from './queued-transaction.ts';
import {
  CompactedError,
  StoreClosedError,
  StoreUnavailableError,
  type Change,
  type ChangeListener,
  type ListOptions,
  type Store,
  type StoreHealth,
  type StoredRecord,
  type SubscribeOptions,
  type Subscription,
  type Transaction,
} from './store.ts';

/** PostgresStoreOptions tune the PostgreSQL backend; the defaults suit `fogbank start`. */
export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** How many changes the feed keeps for resumption (default 100,000). */
  readonly changeRetention?: number;
  /** How far the feed may outgrow `changeRetention` before a commit trims it (default 1,000). */
  readonly compactionBatch?: number;
  /** How often the change feed looks for missed commits while anyone subscribes (default 1 s). */
  readonly pollMs?: number;
  /** Told about connection trouble while running (the store keeps reconnecting). */
  readonly onTrouble?: (message: string) => void;
}

// Bounds how many transactions share one commit (and so how long the first waits for the others).
const MAX_GROUP = 64;

// How many of the newest changes are also kept in memory (at most the retention).
const RECENT_CHANGES = 1024;

// How long a read waits for the watch cache to reach the database's revision before it is a 503.
const CACHE_WAIT_MS = 10_000;

/**
 * PostgresStore keeps state in a PostgreSQL database that several fogbank replicas share.
 *
 * Revisions: every writing transaction, whichever replica runs it, first takes one
 * transaction-level advisory lock (WRITE_LOCK) and holds it to COMMIT, then reads and advances
 * the revision counter in fogbank_meta. Writers therefore take turns, revisions are assigned
 * in commit order, and PostgreSQL releases the lock only after the commit is visible, so a
 * reader that sees revision N also sees every revision below it: a watcher never meets a gap
 * or a reordering. (A sequence would not do: values are taken at insert, not at commit.) The
 * lock also gives `transact` its exclusive-access contract across replicas, so a
 * read-compare-write inside one transaction is safe everywhere.
 *
 * Watch cache (postgres-watch-cache.ts): every record is also held in memory, kept by the change
 * feed. A read outside a transaction reads the database's current revision (shared between
 * concurrent readers, postgres-revision-reads.ts), waits until the cache has reached it and
 * answers from the cache: KEP-2340's consistent read, linearizable across replicas.
 *
 * Group commit (group-commit.ts): transactions that queue in this process while one runs share one
 * BEGIN … COMMIT (one lock acquisition, one WAL flush), as the SQLite backend does; none is
 * acknowledged before the shared COMMIT. Under the lock the cache reaches the revision the group
 * starts from and is then exactly the database, so the transactions read it (with the group's
 * earlier writes over it), check their preconditions in memory and only stage their writes; the
 * group sends them all with its COMMIT. Two round trips per group, whatever it does: BEGIN (lock
 * and revision), then writes, revision, NOTIFY and COMMIT as one text.
 *
 * Connections: a pool (`poolSize`, at least 2): the writer borrows one per group, reads outside
 * transactions use the others (and see committed state only); the change feed keeps one more
 * connection for LISTEN. A lost database makes calls fail with StoreUnavailableError (a 503)
 * rather than hang; the pool reconnects on demand and LISTEN with backoff.
 */
export class PostgresStore implements Store {
  readonly backend = 'postgres';
  readonly leases: PostgresLeases;
  readonly uploads: PostgresUploadBytes;
  readonly files: PostgresFileBytes;
  readonly #pool: pg.Pool;
  readonly #feed: PostgresFeed;
  readonly #retention: number;
  readonly #compactionBatch: number;
  readonly #commits = new GroupCommit({ maxGroup: MAX_GROUP, commit: (group) => this.#commitGroup(group), isClosed: () => this.#closed });
  readonly #cache = new WatchCache();
  /** The newest changes the cache has applied, so reading the feed's tail costs no query (reset with each load). */
  #recent = new RecentChanges(0, 0);
  readonly #revisions: RevisionReads;
  readonly #onTrouble: ((message: string) => void) | undefined;
  /** The transaction the last commit began for the group queued behind it (see #commitGroup). */
  #next: { readonly client: pg.PoolClient; readonly onError: () => void; readonly meta: Map<string, number> | undefined } | undefined;
  /** Counts the cache's (re)loads, so a load overtaken by a newer one (another reset) gives way. */
  #loads = 0;
  #closed = false;

  /**
   * open connects to `url`, migrates the schema (once, whichever replica gets there first) and
   * starts listening for other replicas' commits. An unreachable database throws
   * StoreUnavailableError naming the (password-redacted) URL.
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool(poolConfig(url, options));
    // An idle pooled connection that dies (database restart) is dropped; the next query reconnects.
    pool.on('error', (error) => options.onTrouble?.(`pool: ${error.message}`));
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client, redactUrl(url));
      } finally {
        client.release();
      }
      const revision = await selectMeta(pool, 'revision');
      const store = new PostgresStore(pool, url, revision, options);
      try {
        await store.#feed.start();
        await store.#follow(true);
      } catch (error) {
        await store.#feed.close();
        throw error;
      }
      return store;
    } catch (error) {
      await pool.end().catch(() => undefined);
      const mapped = unavailableOr(error);
      if (mapped instanceof StoreUnavailableError) {
        throw new StoreUnavailableError(new Error(`cannot reach ${redactUrl(url)}: ${errorText(error)}`));
      }
      throw mapped;
    }
  }

  private constructor(pool: pg.Pool, url: string, revision: number, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#retention = options.changeRetention ?? DEFAULT_CHANGE_RETENTION;
    this.#compactionBatch = options.compactionBatch ?? DEFAULT_COMPACTION_BATCH;
    this.#onTrouble = options.onTrouble;
    this.#revisions = new RevisionReads(() => selectMeta(pool, 'revision'));
    this.leases = new PostgresLeases(pool);
    this.uploads = new PostgresUploadBytes(pool);
    this.files = new PostgresFileBytes(pool);
    this.#feed = new PostgresFeed(
      connectionConfig(url, options),
      { changesAfter: (after, limit) => this.#read(() => this.#changesInTable(after, { limit })) },
      revision,
      {
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
        ...(options.onTrouble ? { onTrouble: options.onTrouble } : {}),
      },
    );
  }

  async currentRevision(): Promise<number> {
    return this.#read(() => this.#revisions.read());
  }

  async get<T>(kind: string, key: string): Promise<StoredRecord<T> | undefined> {
    return this.#read(async () => {
      await this.#consistent();
      return this.#cache.get(kind, key) as StoredRecord<T> | undefined;
    });
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    return this.#read(async () => {
      await this.#consistent();
      return this.#cache.list(kind, options) as StoredRecord<T>[];
    });
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    return this.#read(async () => {
      await this.#consistent();
      return this.#cache.count(kind, options.prefix);
    });
  }

  /** consistent waits until the watch cache holds every commit that finished before the call (KEP-2340). */
  async #consistent(): Promise<void> {
    await this.#caughtUp(await this.#revisions.read());
  }

  /** caughtUp waits until the watch cache has reached `revision`, having the feed look for what it misses. */
  #caughtUp(revision: number): Promise<void> {
    return this.#cache.reached(
      revision,
      () => this.#feed.wake(),
      CACHE_WAIT_MS,
      () => new StoreUnavailableError(new Error(`the watch cache has not caught up with revision ${revision}`)),
    );
  }

  /**
   * follow (re)loads the watch cache from a snapshot and keeps it up with the feed: changes
   * published while the snapshot is read are held and applied after it (those it already holds
   * are skipped). A replaced state (reset) ends the subscription and starts a new load. The first
   * load (at open) fails loudly; a later one retries until it succeeds or the store closes.
   */
  async #follow(first: boolean): Promise<void> {
    const load = ++this.#loads;
    const buffer: Change[] = [];
    let held: Change[] | undefined = buffer;
    this.#feed.hub.subscribe(
      (change) => {
        if (held !== undefined) held.push(change);
        else if (change.revision > this.#cache.revision) {
          this.#cache.apply([change]);
          this.#recent.append([change]);
        }
      },
      undefined,
      () => {
        if (!this.#closed) void this.#follow(false);
      },
    );
    for (let pause = 100; ; pause = Math.min(pause * 2, 5_000)) {
      try {
        const { revision, records } = await this.#snapshot();
        if (load !== this.#loads || this.#closed) return;
        this.#cache.load(revision, records);
        const fresh = buffer.filter((change) => change.revision > revision);
        this.#cache.apply(fresh);
        // Only as many changes as the table is sure to keep: never an answer below its compaction point.
        this.#recent = new RecentChanges(Math.min(RECENT_CHANGES, this.#retention), revision);
        this.#recent.append(fresh);
        held = undefined;
        return;
      } catch (error) {
        if (first) throw error;
        this.#onTrouble?.(`watch cache: ${errorText(error)}`);
        if (load !== this.#loads || this.#closed) return;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** snapshot reads the revision and every record in one snapshot. */
  async #snapshot(): Promise<{ revision: number; records: StoredRecord[] }> {
    return this.#withClient(async (client) => {
      const begun = await queryAll<{ value: number }>(client, SNAPSHOT_START);
      try {
        const revision = begun[1]!.rows[0]?.value ?? 0;
        const records: StoredRecord[] = [];
        let after: [string, string] | undefined;
        for (;;) {
          const page = await selectRecordsAfter(client, after, 5000);
          records.push(...page);
          if (page.length < 5000) break;
          const last = page[page.length - 1]!;
          after = [last.kind, last.key];
        }
        return { revision, records };
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
      }
    });
  }

  async transact<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    this.#check();
    return this.#commits.submit(fn);
  }

  async changesSince(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number } = {}): Promise<Change[]> {
    return this.#read(async () => {
      // The tail of the feed, the usual ask (a watch resuming, a list at a recent revision), is in memory.
      await this.#consistent();
      return this.#recent.since(revision, options) ?? (await this.#changesInTable(revision, options));
    });
  }

  /** changesInTable reads the feed from the changes table (what the change feed itself catches up from). */
  async #changesInTable(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number }): Promise<Change[]> {
    const { oldest, changes } = await selectChanges(this.#pool, revision, options.kinds, options.limit);
    if (revision < oldest) throw new CompactedError(revision, oldest);
    return changes;
  }

  async oldestResumableRevision(): Promise<number> {
    return this.#read(() => selectMeta(this.#pool, 'oldest'));
  }

  async subscribe(fromRevision: number, listener: ChangeListener, options: SubscribeOptions = {}): Promise<Subscription> {
    this.#check();
    return subscribeWithBacklog(this.#feed.hub, fromRevision, listener, options, (after) =>
      this.changesSince(after, { ...(options.kinds ? { kinds: options.kinds } : {}), limit: 1000 }),
    );
  }

  async health(): Promise<StoreHealth> {
    this.#check();
    try {
      await this.#pool.query('SELECT 1');
      if (!this.#feed.listening) return { backend: this.backend, ok: false, detail: 'the change feed is reconnecting to the database' };
      return { backend: this.backend, ok: true };
    } catch (error) {
      return { backend: this.backend, ok: false, detail: errorText(error) };
    }
  }

  async exportState<R>(fn: (revision: number, records: () => AsyncIterable<StoredRecord>) => Promise<R>): Promise<R> {
    this.#check();
    // This replica's transactions wait in their queue; every replica's wait for the write lock,
    // held here (READ COMMITTED: with no commit possible, every statement sees the same state).
    return this.#commits.exclusive(async () => {
      await this.#dropNext();
      return this.#withClient(async (client) => {
        const begun = (await client.query(BEGIN_WRITE)) as unknown as pg.QueryResult<{ key: string; value: number }>[];
        try {
          const revision = Number(begun[2]!.rows.find((row) => row.key === 'revision')?.value ?? 0);
          async function* all(): AsyncGenerator<StoredRecord> {
            let after: [string, string] | undefined;
            for (;;) {
              const page = await selectRecordsAfter(client, after, 1000);
              if (page.length === 0) return;
              yield* page;
              const last = page[page.length - 1]!;
              after = [last.kind, last.key];
            }
          }
          return await fn(revision, all);
        } finally {
          await client.query('ROLLBACK').catch(() => undefined);
        }
      });
    });
  }

  async replaceState(source: AsyncIterable<StoredRecord>, revision: number): Promise<number> {
    this.#check();
    const next = await this.#commits.exclusive(async () => {
      await this.#dropNext();
      return this.#withClient(async (client) => {
        try {
          const begun = (await client.query(REPLACE_STATE_START)) as unknown as pg.QueryResult<{ key: string; value: number }>[];
          const current = Number(begun[2]!.rows.find((row) => row.key === 'revision')?.value ?? 0);
          let batch: StoredRecord[] = [];
          for await (const record of source) {
            batch.push(record);
            if (batch.length === 500) {
              await insertRecords(client, batch);
              batch = [];
            }
          }
          await insertRecords(client, batch);
          const next = Math.max(current, revision) + 1;
          await client.query(replaceStateEnd(next));
          return next;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    });
    await this.#feed.reset(next);
    return next;
  }

  /** withClient runs `fn` on a connection of the pool, database failures answered as StoreUnavailableError. */
  async #withClient<R>(fn: (client: pg.PoolClient) => Promise<R>): Promise<R> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw unavailableOr(error);
    }
    const onError = (): void => undefined;
    client.on('error', onError);
    let broken: unknown;
    try {
      return await fn(client);
    } catch (error) {
      broken = error;
      throw unavailableOr(error);
    } finally {
      client.off('error', onError);
      client.release(broken !== undefined && unavailableOr(broken) instanceof StoreUnavailableError ? (broken as Error) : undefined);
    }
  }

  async close(): Promise<void> {
    // Queued transactions are committed first.
    await this.#commits.exclusive(async () => {
      if (this.#closed) return;
      this.#closed = true;
      await this.#dropNext();
      this.#cache.fail(new StoreClosedError());
      await this.#feed.close();
      await this.#pool.end();
    });
  }

  /** Commits one group as one PostgreSQL transaction (GroupCommit's commit). */
  async #commitGroup(group: readonly QueuedTransaction[]): Promise<void> {
    const begun = this.#next;
    this.#next = undefined;
    let client: pg.PoolClient;
    // A connection lost mid-group must not become an unhandled 'error' event.
    let onError: () => void;
    if (begun !== undefined) ({ client, onError } = begun);
    else {
      try {
        client = await this.#pool.connect();
      } catch (error) {
        for (const job of group) job.reject(unavailableOr(error));
        return;
      }
      onError = (): void => undefined;
      client.on('error', onError);
    }
    const done: { job: QueuedTransaction; result: unknown }[] = [];
    const writes: StagedWrite[] = [];
    let broken: unknown;
    let kept = false;
    try {
      let meta = begun?.meta;
      if (meta === undefined) {
        // Without a transaction begun for it (or with one that found the lock taken), begin one now.
        const results = await queryAll<{ key: string; value: number }>(client, begun === undefined ? BEGIN_WRITE : `ROLLBACK; ${BEGIN_WRITE}`);
        meta = metaOf(results[results.length - 1]!);
      }
      const start = meta.get('revision') ?? 0;
      const oldest = meta.get('oldest') ?? 0;
      // Under the write lock nothing else commits: once the cache holds `start` it is the database.
      await this.#caughtUp(start);
      const staged = new Map<string, Map<string, StoredRecord | null>>();
      let revision = start;
      for (const job of group) {
        const tx = new PostgresTransaction(this.#cache, staged, revision);
        let result: unknown;
        try {
          result = await job.fn(tx);
        } catch (error) {
          // Its writes were only staged: dropping them undoes it.
          tx.finish();
          job.reject(error);
          continue;
        }
        tx.finish();
        for (const [kind, byKey] of tx.own) {
          let into = staged.get(kind);
          if (into === undefined) {
            into = new Map();
            staged.set(kind, into);
          }
          for (const [key, record] of byKey) into.set(key, record);
        }
        writes.push(...tx.writes);
        revision = tx.revision;
        done.push({ job, result });
      }
      const compactTo = revision - oldest > this.#retention + this.#compactionBatch ? revision - this.#retention : undefined;
      const commit = revision === start ? 'COMMIT' : groupWrites(writes) + commitWrite(revision, compactTo);
      // Transactions queued meanwhile form the next group: its transaction begins in this round trip.
      const chain = this.#commits.queued > 0;
      if (revision !== start) this.#feed.committing(revision);
      const results = await queryAll<{ key: string; value: number; locked: boolean }>(client, chain ? `${commit}; ${BEGIN_NEXT}` : commit);
      if (chain) {
        const locked = results[results.length - 2]!.rows[0]?.locked === true;
        this.#next = { client, onError, meta: locked ? metaOf(results[results.length - 1]!) : undefined };
        kept = true;
      }
    } catch (error) {
      broken = error;
      this.#feed.committing(undefined);
      await client.query('ROLLBACK').catch(() => undefined);
      // Nothing of the group is durable: fail all its jobs (rejecting a settled one is a no-op).
      for (const job of group) job.reject(unavailableOr(error));
      return;
    } finally {
      if (!kept) {
        client.off('error', onError);
        // A client whose connection failed is destroyed rather than reused.
        client.release(broken !== undefined && unavailableOr(broken) instanceof StoreUnavailableError ? (broken as Error) : undefined);
      }
    }
    await this.#feed.publishLocal(writes.map((write) => write.change));
    for (const { job, result } of done) job.resolve(result);
  }

  /** dropNext ends a transaction begun for a group that never came (the store closing, or exclusive work first). */
  async #dropNext(): Promise<void> {
    const begun = this.#next;
    if (begun === undefined) return;
    this.#next = undefined;
    let broken: Error | undefined;
    await begun.client.query('ROLLBACK').catch((error: unknown) => {
      broken = error instanceof Error ? error : new Error(String(error));
    });
    begun.client.off('error', begun.onError);
    begun.client.release(broken);
  }

  async #read<R>(fn: () => Promise<R>): Promise<R> {
    this.#check();
    try {
      return await fn();
    } catch (error) {
      if (this.#closed) throw new StoreClosedError();
      throw unavailableOr(error);
    }
  }

  #check(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}

/** metaOf reads the rows of `SELECT key, value FROM fogbank_meta`. */
function metaOf(result: pg.QueryResult<{ key: string; value: number }>): Map<string, number> {
  return new Map(result.rows.map((row) => [row.key, row.value]));
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}
