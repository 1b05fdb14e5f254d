import type { RecordCache } from './record-cache.ts';
import { countRecords, isTombstone, listRecords, readCommitted, readRecord, writeKey, type Tombstone } from './sqlite-reads.ts';
import { toRecord } from './sql-rows.ts';
import type { WriteStatements } from './sqlite-statements.ts';
import {
  ConflictError,
  type Change,
  type ChangeType,
  type ListOptions,
  type PutRequest,
  type StoredRecord,
  type Transaction,
  type WriteOptions,
} from './store.ts';

/**
 * SqliteTransaction is the handle one `transact` function gets. It runs its statements on the
 * writer connection inside the open SQLite transaction (so its reads see its writes) and
 * collects what it did, for the store to publish and cache once the commit is durable.
 */
export class SqliteTransaction implements Transaction {
  /** changes are this transaction's feed entries, in revision order. */
  readonly changes: Change[] = [];
  /** written holds its own writes: answers its reads without SQL, feeds the cache after COMMIT. */
  readonly written = new Map<string, StoredRecord | Tombstone>();
  readonly #write: WriteStatements;
  readonly #cache: RecordCache;
  /** The write keys every transaction of this commit group has written so far, kept or rolled back. */
  readonly #groupWritten: Set<string>;
  #revision: number;
  #open = true;

  constructor(write: WriteStatements, cache: RecordCache, revision: number, groupWritten: Set<string>) {
    this.#write = write;
    this.#cache = cache;
    this.#revision = revision;
    this.#groupWritten = groupWritten;
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
    return this.#get<T>(kind, key);
  }

  #get<T>(kind: string, key: string): StoredRecord<T> | undefined {
    this.#guard();
    const id = writeKey(kind, key);
    const own = this.written.get(id);
    if (own !== undefined) return isTombstone(own) ? undefined : (own as StoredRecord<T>);
    // A row another transaction of this group wrote may differ from its cached committed record.
    if (this.#groupWritten.has(id)) return readRecord(this.#write, this.#cache, kind, key) as StoredRecord<T> | undefined;
    // Any other row is as last committed, read as outside any transaction (so a namespace every
    // create checks stays cached however many writes pass it).
    return readCommitted(this.#write, this.#cache, kind, key) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#guard();
    return listRecords(this.#write, this.#cache, kind, options, this.written) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#guard();
    return countRecords(this.#write, kind, options);
  }

  async put<T>(kind: string, key: string, value: T, options?: WriteOptions): Promise<StoredRecord<T>> {
    return this.#put(kind, key, value, options);
  }

  #put<T>(kind: string, key: string, value: T, options: WriteOptions | undefined): StoredRecord<T> {
    this.#guard();
    const w = this.#write;
    const json = serialize(kind, key, value);
    const revision = this.#revision + 1;
    let createRevision: number;
    if (options?.expectRevision === 0) {
      // Expecting no record (a create): the insert itself finds out, one statement instead of two.
      if (w.insertNew.run(kind, key, revision, revision).changes === 0) precondition(kind, key, w.revisionOf.get(kind, key) ?? 0, options);
      createRevision = revision;
    } else {
      // Without a precondition the upsert alone tells created from updated: one statement less.
      if (options?.expectRevision !== undefined) precondition(kind, key, w.revisionOf.get(kind, key) ?? 0, options);
      createRevision = w.upsert.get(kind, key, revision, revision) ?? revision;
    }
    const type: ChangeType = createRevision === revision ? 'created' : 'updated';
    w.appendChange.run(revision, type, kind, key, json, createRevision);
    this.#revision = revision;
    const record: StoredRecord<T> = { kind, key, value, createRevision, revision };
    const id = writeKey(kind, key);
    this.written.set(id, record);
    this.#groupWritten.add(id);
    this.changes.push({ type, kind, key, value, revision, createRevision });
    return record;
  }

  /** getMany reads each key as `get` does, in one go: SQLite is in this process, a batch would save no round trip. */
  async getMany<T>(kind: string, keys: readonly string[]): Promise<(StoredRecord<T> | undefined)[]> {
    return keys.map((key) => this.#get<T>(kind, key));
  }

  /** putMany writes each record as `put` does, in one go (its statements are synchronous and local: no promise per write). */
  async putMany(writes: readonly PutRequest[]): Promise<StoredRecord[]> {
    return writes.map((write) => this.#put(write.kind, write.key, write.value, write.options));
  }

  async delete<T>(kind: string, key: string, options?: WriteOptions): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    const w = this.#write;
    const row = w.record.get(kind, key);
    precondition(kind, key, row?.revision ?? 0, options);
    if (row === undefined) return undefined;
    const id = writeKey(kind, key);
    const own = this.written.get(id);
    const record = own !== undefined && !isTombstone(own) ? own : (this.#cache.get(kind, key, row.revision) ?? toRecord(row));
    const revision = this.#revision + 1;
    w.remove.run(kind, key);
    w.appendChange.run(revision, 'deleted', kind, key, row.value, row.create_revision);
    this.#revision = revision;
    this.written.set(id, { kind, key, deleted: true });
    this.#groupWritten.add(id);
    this.changes.push({ type: 'deleted', kind, key, value: record.value, revision, createRevision: row.create_revision });
    return record as StoredRecord<T>;
  }

  #guard(): void {
    if (!this.#open) throw new Error('the transaction has finished: use its handle only inside the transact function');
  }
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
