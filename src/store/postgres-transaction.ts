import type { Staged, WatchCache } from './postgres-watch-cache.ts';
import { ConflictError, type Change, type ListOptions, type PutRequest, type StoredRecord, type Transaction, type WriteOptions } from './store.ts';

/** StagedWrite is one change a transaction made, with its value as the JSON text the tables keep. */
export interface StagedWrite {
  readonly change: Change;
  readonly json: string;
}

/**
 * PostgresTransaction is the handle one `transact` function gets. The commit group it belongs to
 * holds the write lock and the watch cache has reached the database's revision, so the cache,
 * with the writes of the group's earlier transactions (`group`) and this one's own over it, is
 * exactly what the database would answer: reads cost no round trip, preconditions are checked
 * here, and writes are only staged. The group sends every staged write with its COMMIT, in one
 * round trip (postgres-sql.ts, commitGroup); a transaction that throws is dropped from the group
 * with nothing to undo.
 */
export class PostgresTransaction implements Transaction {
  /** writes are this transaction's changes in revision order, with their JSON. */
  readonly writes: StagedWrite[] = [];
  /** own is this transaction's latest write of each record, by kind and key (null: deleted). */
  readonly own = new Map<string, Map<string, StoredRecord | null>>();
  readonly #cache: WatchCache;
  readonly #layers: readonly Staged[];
  #revision: number;
  #open = true;

  constructor(cache: WatchCache, group: Staged, revision: number) {
    this.#cache = cache;
    this.#layers = [this.own, group];
    this.#revision = revision;
  }

  /** revision is the revision of this transaction's last write (its start revision before any). */
  get revision(): number {
    return this.#revision;
  }

  /** finish invalidates the handle once the function has settled. */
  finish(): void {
    this.#open = false;
  }

  async get<T>(kind: string, key: string): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    return this.#cache.get(kind, key, this.#layers) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#guard();
    return this.#cache.list(kind, options, this.#layers) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#guard();
    return this.#cache.count(kind, options.prefix, this.#layers);
  }

  async getMany<T>(kind: string, keys: readonly string[]): Promise<(StoredRecord<T> | undefined)[]> {
    this.#guard();
    return keys.map((key) => this.#cache.get(kind, key, this.#layers) as StoredRecord<T> | undefined);
  }

  async put<T>(kind: string, key: string, value: T, options?: WriteOptions): Promise<StoredRecord<T>> {
    return this.#put(kind, key, value, options);
  }

  #put<T>(kind: string, key: string, value: T, options: WriteOptions | undefined): StoredRecord<T> {
    this.#guard();
    checkName(kind, key);
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`the value of ${kind}/${key} is not JSON-serialisable`);
    const current = this.#cache.get(kind, key, this.#layers);
    precondition(kind, key, current, options);
    const revision = this.#revision + 1;
    const record: StoredRecord<T> = { kind, key, value, createRevision: current?.createRevision ?? revision, revision };
    this.#stage(record, { type: current === undefined ? 'created' : 'updated', kind, key, value, revision, createRevision: record.createRevision }, json);
    return record;
  }

  /** putMany stages each write as `put` does, in one go (they reach the server with the commit). */
  async putMany(writes: readonly PutRequest[]): Promise<StoredRecord[]> {
    return writes.map((write) => this.#put(write.kind, write.key, write.value, write.options));
  }

  async delete<T>(kind: string, key: string, options?: WriteOptions): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    const current = this.#cache.get(kind, key, this.#layers);
    precondition(kind, key, current, options);
    if (current === undefined) return undefined;
    const revision = this.#revision + 1;
    const json = JSON.stringify(current.value);
    this.#stage(null, { type: 'deleted', kind, key, value: current.value, revision, createRevision: current.createRevision }, json, kind, key);
    return current as StoredRecord<T>;
  }

  #stage(record: StoredRecord | null, change: Change, json: string, kind = change.kind, key = change.key): void {
    let byKey = this.own.get(kind);
    if (byKey === undefined) {
      byKey = new Map();
      this.own.set(kind, byKey);
    }
    byKey.set(key, record);
    this.writes.push({ change, json });
    this.#revision = change.revision;
  }

  #guard(): void {
    if (!this.#open) throw new Error('the transaction has finished: use its handle only inside the transact function');
  }
}

function precondition(kind: string, key: string, current: StoredRecord | undefined, options: WriteOptions | undefined): void {
  const expected = options?.expectRevision;
  if (expected === undefined) return;
  const actual = current?.revision ?? 0;
  if (actual !== expected) throw new ConflictError(kind, key, expected, actual);
}

/**
 * checkName refuses what a PostgreSQL text column cannot hold (NUL), here, so the one
 * transaction fails with the database's words rather than the whole group's COMMIT.
 */
function checkName(kind: string, key: string): void {
  if (kind.includes('\u0000') || key.includes('\u0000')) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
}
