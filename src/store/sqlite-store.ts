import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { ChangeHub, subscribeWithBacklog } from './change-hub.ts';
import { Checkpointer } from './sqlite-checkpointer.ts';
import { migrate } from './migrations.ts';
import { LocalLeases } from './local-leases.ts';
import { GroupCommit } from './group-commit.ts';
import { RecentChanges } from './recent-changes.ts';
import { RecordCache } from './record-cache.ts';
import { toRecord, type RecordRow } from './sql-rows.ts';
import { countRecords, isTombstone, listRecords, readChanges, readCommitted } from './sqlite-reads.ts';
import { ReadStatements, RECORD_COLUMNS, WriteStatements } from './sqlite-statements.ts';
import { SqliteTransaction } from './sqlite-transaction.ts';
import { LocalFileBytes } from './file-bytes.ts';
import { FileUploadBytes } from './upload-bytes.ts';
import { DEFAULT_CHANGE_RETENTION, DEFAULT_COMPACTION_BATCH, type QueuedTransaction } from './queued-transaction.ts';
import {
  CompactedError,
  StoreClosedError,
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

const DEFAULT_CACHE_SIZE = 10_000;
// The newest changes kept in memory for reads of the feed's tail (see RecentChanges).
const RECENT_CHANGES = 1024;
// Bounds how long the first transaction of a group waits for the others to run before its commit.
const MAX_GROUP = 256;
// How many turns of the event loop a group gathers transactions for: the requests read in this
// turn and the next join it, so under load a commit serves more of them (create Event on 16
// connections: +4.7% requests per second over one turn; a third turn added nothing measurable),
// and idle it costs microseconds.
const GROUP_TURNS = 2;

/**
 * SqliteStore is the embedded default backend: one database file, WAL journal.
 *
 * Durability: `synchronous=NORMAL` in WAL mode hands every committed transaction to the OS
 * (write() of the WAL frames) before COMMIT returns, so an acknowledged write survives
 * `kill -9` of the process; only an OS crash or power loss can lose the last commits, which is
 * the trade we want for a local emulator (FULL would fsync on every commit).
 *
 * Write once: a record's value is written only into its change row (which the feed needs anyway);
 * the records row points at it (value '') until compaction drops the change, which first copies
 * the value into the record (sqlite-statements.ts RECORD_VALUE, keepValues). Half the bytes per
 * write, so half the log to write and checkpoint (messages.send 10 KB: about 2× the sends per second).
 *
 * Group commit (group-commit.ts): the cost of a commit is mostly writing its pages to the WAL, so transactions
 * that queue up while one runs, or arrive within two turns of the event loop (a group starts two
 * turns after its first transaction), are committed together: one `BEGIN IMMEDIATE … COMMIT` around
 * several functions, each in its own savepoint (a throwing one is rolled back alone). Every
 * function still runs alone and sees all earlier writes, and none is acknowledged (its promise
 * resolved, its changes published) before the shared COMMIT is done, so the contract holds.
 * Keep transaction functions short: a slow one delays the acknowledgement of its group.
 *
 * Checkpoints: SQLite's automatic checkpoint copies the log into the database inside the COMMIT
 * that crosses its threshold, fsyncs included, stalling the event loop; the Checkpointer does that
 * work on a thread instead (sqlite-checkpointer.ts; about +5% creates per second on this path).
 *
 * Connections: the SQLite transaction stays open across the awaits of the functions, so the
 * writer connection holds uncommitted rows meanwhile. Reads from outside then go to a second,
 * read-only connection, which in WAL mode sees the last committed state; otherwise they use the
 * writer connection, whose page cache is warm.
 *
 * One process per database file: the revision counter and record cache live in this process
 * (several replicas sharing state is what the postgres backend is for).
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite';
  readonly leases = new LocalLeases();
  /** uploads live as files in `uploads/` beside the database file. */
  readonly uploads: FileUploadBytes;
  /** files live beside the database file, each at its id's relative path (`mail/raw/…`). */
  readonly files: LocalFileBytes;
  readonly #writer: Database.Database;
  readonly #reader: Database.Database;
  readonly #checkpointer: Checkpointer;
  readonly #write: WriteStatements;
  readonly #read: ReadStatements;
  readonly #hub = new ChangeHub();
  readonly #cache: RecordCache;
  #recent: RecentChanges;
  readonly #retention: number;
  readonly #compactionBatch: number;
  readonly #commits = new GroupCommit({ maxGroup: MAX_GROUP, turns: GROUP_TURNS, commit: (group) => this.#commitGroup(group), isClosed: () => this.#closed });
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
      // Checkpoints are the Checkpointer's, off the event loop.
      writer.pragma('wal_autocheckpoint = 0');
      migrate(writer, file);
      reader = new Database(file, { readonly: true, fileMustExist: true });
      return new SqliteStore(writer, reader, file, options);
    } catch (error) {
      reader?.close();
      writer.close();
      throw error;
    }
  }

  private constructor(writer: Database.Database, reader: Database.Database, file: string, options: SqliteStoreOptions) {
    const dir = dirname(file);
    this.uploads = new FileUploadBytes(join(dir, 'uploads'));
    this.files = new LocalFileBytes(dir);
    this.#writer = writer;
    this.#reader = reader;
    this.#checkpointer = new Checkpointer(file, writer);
    this.#write = new WriteStatements(writer);
    this.#read = new ReadStatements(reader);
    this.#cache = new RecordCache(options.recordCacheSize ?? DEFAULT_CACHE_SIZE);
    this.#retention = options.changeRetention ?? DEFAULT_CHANGE_RETENTION;
    this.#compactionBatch = options.compactionBatch ?? DEFAULT_COMPACTION_BATCH;
    this.#revision = Math.max(this.#write.readRevision.get() ?? 0, this.#write.newestChange.get() ?? 0);
    const first = this.#write.oldestChange.get();
    this.#oldest = first === null || first === undefined ? this.#revision : first - 1;
    this.#recent = new RecentChanges(RECENT_CHANGES, this.#revision);
  }

  async currentRevision(): Promise<number> {
    this.#check();
    return this.#revision;
  }

  /** revisionNow is currentRevision without a promise: the counter lives in this process. */
  revisionNow(): number {
    this.#check();
    return this.#revision;
  }

  async get<T>(kind: string, key: string): Promise<StoredRecord<T> | undefined> {
    this.#check();
    // Outside a transaction every row is as last committed (a GET by name of a cached record costs no SQL).
    return readCommitted(this.#committedView(), this.#cache, kind, key) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#check();
    return listRecords(this.#committedView(), this.#cache, kind, options) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#check();
    return countRecords(this.#committedView(), kind, options);
  }

  async transact<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    this.#check();
    return this.#commits.submit(fn);
  }

  async changesSince(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number } = {}): Promise<Change[]> {
    this.#check();
    if (revision < this.#oldest) throw new CompactedError(revision, this.#oldest);
    return this.#recent.since(revision, options) ?? readChanges(this.#committedView(), this.#cache, revision, options);
  }

  async health(): Promise<StoreHealth> {
    this.#check();
    return { backend: this.backend, ok: true };
  }

  async oldestResumableRevision(): Promise<number> {
    this.#check();
    return this.#oldest;
  }

  async subscribe(fromRevision: number, listener: ChangeListener, options: SubscribeOptions = {}): Promise<Subscription> {
    this.#check();
    return subscribeWithBacklog(this.#hub, fromRevision, listener, options, (after) =>
      this.changesSince(after, { ...(options.kinds ? { kinds: options.kinds } : {}), limit: 1000 }),
    );
  }

  async exportState<R>(fn: (revision: number, records: () => AsyncIterable<StoredRecord>) => Promise<R>): Promise<R> {
    this.#check();
    // Queued transactions commit first; none runs until fn is done, so the writer connection
    // (which reads outside transactions use) sees one state throughout.
    return this.#commits.exclusive(async () => {
      this.#check();
      const columns = `SELECT ${RECORD_COLUMNS} FROM records`;
      const firstPage = this.#writer.prepare<[], RecordRow>(`${columns} ORDER BY kind, key LIMIT 1000`);
      const page = this.#writer.prepare<[string, string], RecordRow>(`${columns} WHERE (kind, key) > (?, ?) ORDER BY kind, key LIMIT 1000`);
      async function* all(): AsyncGenerator<StoredRecord> {
        let after: [string, string] | undefined;
        for (;;) {
          // Pages, not one iterate(): the connection must stay free for the reads fn makes meanwhile.
          const rows = after === undefined ? firstPage.all() : page.all(...after);
          if (rows.length === 0) return;
          for (const row of rows) yield toRecord(row);
          const last = rows[rows.length - 1]!;
          after = [last.kind, last.key];
        }
      }
      return fn(this.#revision, all);
    });
  }

  async replaceState(source: AsyncIterable<StoredRecord>, revision: number): Promise<number> {
    this.#check();
    return this.#commits.exclusive(async () => {
      this.#check();
      const next = Math.max(this.#revision, revision) + 1;
      const insert = this.#writer.prepare<[string, string, string, number, number]>(
        'INSERT INTO records (kind, key, value, create_revision, revision) VALUES (?, ?, ?, ?, ?)',
      );
      const w = this.#write;
      await this.#checkpointer.beforeTransaction();
      w.begin.run();
      // Reads from outside go to the reader connection meanwhile: they see the old state until COMMIT.
      this.#inTransaction = true;
      try {
        this.#writer.exec('DELETE FROM records; DELETE FROM changes');
        for await (const record of source) insert.run(record.kind, record.key, JSON.stringify(record.value), record.createRevision, record.revision);
        w.setRevision.run(next);
        w.commit.run();
      } catch (error) {
        if (this.#writer.inTransaction) w.rollback.run();
        throw error;
      } finally {
        this.#inTransaction = false;
      }
      this.#checkpointer.committed();
      this.#cache.clear();
      this.#revision = next;
      this.#oldest = next;
      this.#recent = new RecentChanges(RECENT_CHANGES, next);
      this.#hub.reset(next);
      return next;
    });
  }

  async close(): Promise<void> {
    // Queued transactions are committed first.
    await this.#commits.exclusive(async () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#cache.clear();
      await this.#checkpointer.close();
      // Only for readers of the file (and tidiness): open() recomputes it from the feed anyway.
      this.#write.setRevision.run(this.#revision);
      this.#reader.close();
      this.#writer.close();
    });
  }

  /** Commits one group as one SQLite transaction (GroupCommit's commit). */
  async #commitGroup(group: readonly QueuedTransaction[]): Promise<void> {
    const w = this.#write;
    const done: { job: QueuedTransaction; tx: SqliteTransaction; result: unknown }[] = [];
    let revision = this.#revision;
    let oldest = this.#oldest;
    try {
      // The tail checkpoint, when due, runs on the checkpoint thread while this group waits (the event loop does not).
      const tail = this.#checkpointer.beforeTransaction();
      if (tail !== undefined) await tail;
      w.begin.run();
    } catch (error) {
      for (const job of group) job.reject(error);
      return;
    }
    this.#inTransaction = true;
    // A lone job needs no savepoint: if it throws, rolling back the whole transaction undoes it.
    const savepoints = group.length > 1;
    const groupWritten = new Set<string>();
    try {
      for (const job of group) {
        const tx = new SqliteTransaction(w, this.#cache, revision, groupWritten);
        if (savepoints) w.savepoint.run();
        try {
          const result = await job.fn(tx);
          tx.finish();
          if (savepoints) w.release.run();
          revision = tx.revision;
          done.push({ job, tx, result });
        } catch (error) {
          tx.finish();
          // SQLite may have abandoned the whole transaction (e.g. a full disk): then the group fails.
          if (!savepoints || !this.#writer.inTransaction) throw error;
          w.rollbackToSavepoint.run();
          w.release.run();
          job.reject(error);
        }
      }
      // Trim in the same transaction, recording the revision in meta because the trim may remove
      // the newest change it would otherwise be derived from (retention 0). Commits in between
      // leave meta alone: one page less to write each time (about a quarter of a commit's cost).
      if (revision - oldest > this.#retention + this.#compactionBatch) {
        oldest = Math.max(oldest, revision - this.#retention);
        w.keepValues.run(oldest);
        w.compact.run(oldest);
        w.setRevision.run(revision);
      }
      w.commit.run();
    } catch (error) {
      this.#inTransaction = false;
      if (this.#writer.inTransaction) w.rollback.run();
      // Nothing of the group is durable: fail all its jobs (rejecting a settled one is a no-op).
      for (const job of group) job.reject(error);
      return;
    }
    this.#inTransaction = false;
    this.#checkpointer.committed();
    this.#revision = revision;
    this.#oldest = oldest;
    for (const { tx } of done) {
      for (const entry of tx.written.values()) {
        if (isTombstone(entry)) this.#cache.forget(entry.kind, entry.key);
        else this.#cache.set(entry);
      }
    }
    for (const { tx } of done) this.#recent.append(tx.changes);
    for (const { tx } of done) this.#hub.publish(tx.changes);
    for (const { job, result } of done) job.resolve(result);
  }

  /** The statements that see exactly the committed state right now (see the class comment). */
  #committedView(): ReadStatements {
    return this.#inTransaction ? this.#read : this.#write;
  }

  #check(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}
