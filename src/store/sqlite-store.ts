import Database from 'better-sqlite3';
import { ChangeHub, subscribeWithBacklog } from './change-hub.ts';
import { migrate } from './migrations.ts';
import { Mutex } from './mutex.ts';
import { RecordCache } from './record-cache.ts';
import { ReadStatements, WriteStatements, type ChangeRow, type ListParams, type RecordRow } from './sqlite-statements.ts';
import {
  CompactedError,
  ConflictError,
  StoreClosedError,
  type Change,
  type ChangeListener,
  type ChangeType,
  type ListOptions,
  type Store,
  type StoredRecord,
  type Subscription,
  type Transaction,
  type WriteOptions,
} from './store.ts';

/** SqliteStoreOptions tune the SQLite backend; the defaults suit `fogbank start`. */
export interface SqliteStoreOptions {
  /** How many changes the feed keeps for resumption (default 100,000). */
  readonly changeRetention?: number;
  /**
   * How far the feed may outgrow `changeRetention` before a commit trims it (default 1,000), so
   * the DELETE runs once per that many writes instead of on every commit.
   */
  readonly compactionBatch?: number;
  /** How many parsed records to keep for reads of unchanged records (default 10,000; 0 disables). */
  readonly recordCacheSize?: number;
}

const DEFAULT_RETENTION = 100_000;
const DEFAULT_COMPACTION_BATCH = 1_000;
const DEFAULT_CACHE_SIZE = 10_000;

/** A staged delete, remembered so reads inside the transaction and the cache see it. */
interface Tombstone {
  readonly kind: string;
  readonly key: string;
  readonly deleted: true;
}

/**
 * SqliteStore is the embedded default backend: one database file, WAL journal.
 *
 * Durability: `synchronous=NORMAL` in WAL mode hands every committed transaction to the OS
 * (write() of the WAL frames) before COMMIT returns, so an acknowledged write survives
 * `kill -9` of the process; only an OS crash or power loss can lose the last commits, which is
 * the trade we want for a local emulator (FULL would fsync on every commit).
 *
 * Connections: a transaction keeps `BEGIN IMMEDIATE` open across the awaits of its function, so
 * the writer connection holds uncommitted rows meanwhile. Reads from outside the transaction
 * then go to a second, read-only connection, which in WAL mode sees the last committed state;
 * otherwise they use the writer connection, whose page cache is warm.
 *
 * One process per database file: the revision counter and record cache live in this process
 * (several replicas sharing state is what the postgres backend is for).
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite';
  readonly #writer: Database.Database;
  readonly #reader: Database.Database;
  readonly #write: WriteStatements;
  readonly #read: ReadStatements;
  readonly #hub = new ChangeHub();
  readonly #mutex = new Mutex();
  readonly #cache: RecordCache;
  readonly #retention: number;
  readonly #compactionBatch: number;
  #revision: number;
  #oldest: number;
  #inTransaction = false;
  #closed = false;

  /** open opens (creating and migrating as needed) the database at `file`. */
  static open(file: string, options: SqliteStoreOptions = {}): SqliteStore {
    const writer = new Database(file);
    let reader: Database.Database | undefined;
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('synchronous = NORMAL');
      migrate(writer, file);
      reader = new Database(file, { readonly: true, fileMustExist: true });
      return new SqliteStore(writer, reader, options);
    } catch (error) {
      reader?.close();
      writer.close();
      throw error;
    }
  }

  private constructor(writer: Database.Database, reader: Database.Database, options: SqliteStoreOptions) {
    this.#writer = writer;
    this.#reader = reader;
    this.#write = new WriteStatements(writer);
    this.#read = new ReadStatements(reader);
    this.#cache = new RecordCache(options.recordCacheSize ?? DEFAULT_CACHE_SIZE);
    this.#retention = options.changeRetention ?? DEFAULT_RETENTION;
    this.#compactionBatch = options.compactionBatch ?? DEFAULT_COMPACTION_BATCH;
    this.#revision = Math.max(this.#write.readRevision.get() ?? 0, this.#write.newestChange.get() ?? 0);
    const first = this.#write.oldestChange.get();
    this.#oldest = first === null || first === undefined ? this.#revision : first - 1;
  }

  async currentRevision(): Promise<number> {
    this.#check();
    return this.#revision;
  }

  async get<T>(kind: string, key: string): Promise<StoredRecord<T> | undefined> {
    this.#check();
    return this.#getRecord(this.#committedView(), kind, key, true) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#check();
    return this.#listRecords(this.#committedView(), kind, options) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#check();
    return countRecords(this.#committedView(), kind, options);
  }

  async transact<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    this.#check();
    return this.#mutex.run(async () => {
      this.#check();
      return this.#runTransaction(fn);
    });
  }

  async changesSince(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number } = {}): Promise<Change[]> {
    this.#check();
    if (revision < this.#oldest) throw new CompactedError(revision, this.#oldest);
    const view = this.#committedView();
    const limit = sqlLimit(options.limit);
    const rows =
      options.kinds === undefined
        ? view.changes.all(revision, limit)
        : view.changesOfKinds.all(revision, JSON.stringify(options.kinds), limit);
    return rows.map((row) => this.#toChange(row));
  }

  async oldestResumableRevision(): Promise<number> {
    this.#check();
    return this.#oldest;
  }

  async subscribe(
    fromRevision: number,
    listener: ChangeListener,
    options: { readonly kinds?: readonly string[] } = {},
  ): Promise<Subscription> {
    this.#check();
    return subscribeWithBacklog(this.#hub, fromRevision, listener, options.kinds, (after) =>
      this.changesSince(after, { ...(options.kinds ? { kinds: options.kinds } : {}), limit: 1000 }),
    );
  }

  async close(): Promise<void> {
    await this.#mutex.run(async () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#cache.clear();
      // Only for readers of the file (and tidiness): open() recomputes it from the feed anyway.
      this.#write.setRevision.run(this.#revision);
      this.#reader.close();
      this.#writer.close();
    });
  }

  async #runTransaction<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    const w = this.#write;
    const start = this.#revision;
    let revision = start;
    let open = true;
    const pending: Change[] = [];
    // The transaction's own writes, by cache key: answers its reads without SQL and feeds the
    // cache after COMMIT (never before, so a rolled-back value is never cached).
    const written = new Map<string, StoredRecord | Tombstone>();
    const guard = (): void => {
      if (!open) throw new Error('the transaction has finished: use its handle only inside the transact function');
    };
    const tx: Transaction = {
      get: async <T>(kind: string, key: string) => {
        guard();
        const own = written.get(writeKey(kind, key));
        if (own !== undefined) return isTombstone(own) ? undefined : (own as StoredRecord<T>);
        return this.#getRecord(w, kind, key, false) as StoredRecord<T> | undefined;
      },
      list: async <T>(kind: string, options: ListOptions = {}) => {
        guard();
        return this.#listRecords(w, kind, options, written) as StoredRecord<T>[];
      },
      count: async (kind: string, options: Pick<ListOptions, 'prefix'> = {}) => {
        guard();
        return countRecords(w, kind, options);
      },
      put: async <T>(kind: string, key: string, value: T, options?: WriteOptions) => {
        guard();
        const json = serialize(kind, key, value);
        // Without a precondition the upsert alone tells created from updated: one statement less.
        if (options?.expectRevision !== undefined) precondition(kind, key, w.revisionOf.get(kind, key) ?? 0, options);
        const next = revision + 1;
        const createRevision = w.upsert.get(kind, key, json, next, next) ?? next;
        const type: ChangeType = createRevision === next ? 'created' : 'updated';
        w.appendChange.run(next, type, kind, key, json, createRevision);
        revision = next;
        const record: StoredRecord<T> = { kind, key, value, createRevision, revision };
        written.set(writeKey(kind, key), record);
        pending.push({ type, kind, key, value, revision, createRevision });
        return record;
      },
      delete: async <T>(kind: string, key: string, options?: WriteOptions) => {
        guard();
        const row = w.record.get(kind, key);
        precondition(kind, key, row?.revision ?? 0, options);
        if (row === undefined) return undefined;
        const id = writeKey(kind, key);
        const own = written.get(id);
        const record = own !== undefined && !isTombstone(own) ? own : (this.#cache.get(kind, key, row.revision) ?? toRecord(row));
        const next = revision + 1;
        w.remove.run(kind, key);
        w.appendChange.run(next, 'deleted', kind, key, row.value, row.create_revision);
        revision = next;
        written.set(id, { kind, key, deleted: true });
        pending.push({ type: 'deleted', kind, key, value: record.value, revision, createRevision: row.create_revision });
        return record as StoredRecord<T>;
      },
    };

    w.begin.run();
    this.#inTransaction = true;
    let oldest = this.#oldest;
    let result: R;
    try {
      result = await fn(tx);
      open = false;
      // Trim in the same transaction, recording the revision in meta because the trim may remove
      // the newest change it would otherwise be derived from (retention 0). Commits in between
      // leave meta alone: one page less to write each time (about a quarter of a commit's cost).
      if (revision !== start && revision - oldest > this.#retention + this.#compactionBatch) {
        oldest = Math.max(oldest, revision - this.#retention);
        w.compact.run(oldest);
        w.setRevision.run(revision);
      }
      w.commit.run();
    } catch (error) {
      open = false;
      this.#inTransaction = false;
      // SQLite may already have rolled back by itself (e.g. on a full disk).
      if (this.#writer.inTransaction) w.rollback.run();
      throw error;
    }
    this.#inTransaction = false;
    this.#revision = revision;
    this.#oldest = oldest;
    for (const entry of written.values()) {
      if (isTombstone(entry)) this.#cache.forget(entry.kind, entry.key);
      else this.#cache.set(entry);
    }
    this.#hub.publish(pending);
    return result;
  }

  /** The statements that see exactly the committed state right now (see the class comment). */
  #committedView(): ReadStatements {
    return this.#inTransaction ? this.#read : this.#write;
  }

  #getRecord(view: ReadStatements, kind: string, key: string, remember: boolean): StoredRecord | undefined {
    // Asking for the revision first lets an unchanged record skip both the value copy and JSON.parse.
    const revision = view.revisionOf.get(kind, key);
    if (revision === undefined) return undefined;
    const cached = this.#cache.get(kind, key, revision);
    if (cached !== undefined) return cached;
    const row = view.record.get(kind, key);
    if (row === undefined) return undefined;
    const record = toRecord(row);
    // Only committed rows may be cached: `remember` is false for reads inside a transaction.
    if (remember) this.#cache.set(record);
    return record;
  }

  #listRecords(
    view: ReadStatements,
    kind: string,
    options: ListOptions,
    own?: ReadonlyMap<string, StoredRecord | Tombstone>,
  ): StoredRecord[] {
    const params: ListParams[0] = { kind, limit: sqlLimit(options.limit) };
    if (options.prefix !== undefined) params.prefix = options.prefix;
    if (options.after !== undefined) params.after = options.after;
    const variant = (options.prefix !== undefined ? 1 : 0) + (options.after !== undefined ? 2 : 0);
    const rows = view.list[variant]!.all(params);
    return rows.map((row) => {
      const staged = own?.get(writeKey(row.kind, row.key));
      if (staged !== undefined && !isTombstone(staged) && staged.revision === row.revision) return staged;
      return this.#cache.get(row.kind, row.key, row.revision) ?? toRecord(row);
    });
  }

  #toChange(row: ChangeRow): Change {
    const cached = this.#cache.get(row.kind, row.key, row.revision);
    return {
      type: row.type as ChangeType,
      kind: row.kind,
      key: row.key,
      value: cached !== undefined ? cached.value : JSON.parse(row.value),
      revision: row.revision,
      createRevision: row.create_revision,
    };
  }

  #check(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}

function countRecords(view: ReadStatements, kind: string, options: Pick<ListOptions, 'prefix'>): number {
  return options.prefix === undefined ? (view.count.get(kind) ?? 0) : (view.countPrefix.get({ kind, prefix: options.prefix }) ?? 0);
}

function precondition(kind: string, key: string, actual: number, options: WriteOptions | undefined): void {
  const expected = options?.expectRevision;
  if (expected !== undefined && expected !== actual) throw new ConflictError(kind, key, expected, actual);
}

function serialize(kind: string, key: string, value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`the value of ${kind}/${key} is not JSON-serialisable`);
  return json;
}

function toRecord(row: RecordRow): StoredRecord {
  return { kind: row.kind, key: row.key, value: JSON.parse(row.value), createRevision: row.create_revision, revision: row.revision };
}

// SQLite reads a negative LIMIT as "no limit".
function sqlLimit(limit: number | undefined): number {
  return limit === undefined ? -1 : Math.max(0, Math.floor(limit));
}

function writeKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}

function isTombstone(entry: StoredRecord | Tombstone): entry is Tombstone {
  return 'deleted' in entry;
}
