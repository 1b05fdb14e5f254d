/**
 * The storage contract every backend (memory, SQLite, PostgreSQL) implements.
 *
 * State is a set of records, each addressed by a `kind` (the resource family, e.g.
 * `compute.instanceTemplates`) and a `key` (the tenancy-scoped name, e.g. `p/global/t1`).
 * Every write gets the next value of one global, monotonic revision; the change feed is the
 * ordered list of those writes, so a subscriber can resume from any revision it has seen
 * (the cluster API's resourceVersion and watch sit on this).
 *
 * Writes happen inside `transact`, which runs its function with exclusive access to the store:
 * reads inside it see the transaction's own writes, and either every write of the function
 * commits (with consecutive revisions) or none does (the function threw). The transaction handle
 * is only valid until the function settles, and the function must not call `transact` itself:
 * transactions are serialised, so a nested one would wait for its parent forever.
 *
 * Values are JSON data (the SQLite and PostgreSQL backends store them as JSON text) and are
 * treated as immutable: backends hand the same object to several readers (the memory backend
 * keeps the object it was given; SQLite caches parsed records), so neither the value passed to
 * `put` nor a value read back may be mutated afterwards. Copy before changing.
 */

import { UnavailableError } from '../lib/errors.ts';
import type { FileBytes } from './file-bytes.ts';
import type { UploadBytes } from './upload-bytes.ts';

/** StoredRecord is one record as the store holds it. */
export interface StoredRecord<T = unknown> {
  readonly kind: string;
  readonly key: string;
  readonly value: T;
  /** The revision of the write that created this record. */
  readonly createRevision: number;
  /** The revision of the last write to this record (its "resourceVersion"). */
  readonly revision: number;
}

/** ChangeType says what a change did to its record. */
export type ChangeType = 'created' | 'updated' | 'deleted';

/** Change is one entry of the change feed. For `deleted`, `value` is the last value held. */
export interface Change<T = unknown> {
  readonly type: ChangeType;
  readonly kind: string;
  readonly key: string;
  readonly value: T;
  readonly revision: number;
  readonly createRevision: number;
}

/**
 * ListOptions narrows a list; keys come back in ascending order. The memory backend orders by
 * UTF-16 code unit, SQLite by UTF-8 byte (i.e. code point): the two agree unless a key holds a
 * character beyond U+FFFF (an emoji, say), which the APIs' ASCII names never do.
 */
export interface ListOptions {
  /** Only keys that start with this prefix. */
  readonly prefix?: string;
  /** Only keys strictly greater than this one (for continue tokens). */
  readonly after?: string;
  /** At most this many records. */
  readonly limit?: number;
}

/** WriteOptions carry the compare-and-swap precondition of a write. */
export interface WriteOptions {
  /**
   * The revision the caller last read. The write fails with ConflictError unless the record's
   * current revision equals it; `0` means "the record must not exist" (create-only).
   */
  readonly expectRevision?: number;
}

/** ReadView is what can be read, inside or outside a transaction. */
export interface ReadView {
  get<T = unknown>(kind: string, key: string): Promise<StoredRecord<T> | undefined>;
  list<T = unknown>(kind: string, options?: ListOptions): Promise<StoredRecord<T>[]>;
  count(kind: string, options?: Pick<ListOptions, 'prefix'>): Promise<number>;
}

/** PutRequest is one write of a `putMany`. */
export interface PutRequest<T = unknown> {
  readonly kind: string;
  readonly key: string;
  readonly value: T;
  readonly options?: WriteOptions;
}

/** Transaction is the write handle `transact` passes to its function. */
export interface Transaction extends ReadView {
  /** put creates or replaces a record and returns it with its new revision. */
  put<T>(kind: string, key: string, value: T, options?: WriteOptions): Promise<StoredRecord<T>>;
  /**
   * getMany reads several records of one kind (as `get` each, own writes included), in the
   * order of `keys`; a backend across a network reads them in one round trip.
   */
  getMany<T = unknown>(kind: string, keys: readonly string[]): Promise<(StoredRecord<T> | undefined)[]>;
  /**
   * putMany writes several records as `put` one after another would (consecutive revisions, in
   * order) and returns them; a backend across a network sends them in one round trip. A failed
   * precondition throws ConflictError, possibly after later writes of the batch ran: end the
   * transaction with it (its writes are undone), never write on after catching it.
   */
  putMany(writes: readonly PutRequest[]): Promise<StoredRecord[]>;
  /** delete removes a record, returning what it held, or undefined when there was none. */
  delete<T = unknown>(kind: string, key: string, options?: WriteOptions): Promise<StoredRecord<T> | undefined>;
}

/** ChangeListener receives changes in revision order. */
export type ChangeListener = (change: Change) => void;

/** Subscription is a live attachment to the change feed. */
export interface Subscription {
  close(): void;
}

/** SubscribeOptions narrow a subscription and say what to do when the store's state is replaced. */
export interface SubscribeOptions {
  /** Only changes of these kinds. */
  readonly kinds?: readonly string[];
  /**
   * onReset is called, once, when the store's whole state is replaced (a snapshot restored, a
   * reset) or the feed was compacted past what this subscriber had seen: the changes it was
   * following no longer lead to the store's state, as after an etcd restore. The subscription
   * has ended when it is called (the revision is the store's new one, from which a subscriber
   * that relists can follow again). Without onReset a subscription lives on and sees only the
   * changes committed after the replacement.
   */
  readonly onReset?: (revision: number) => void;
}

/** Store is the whole contract. */
export interface Store extends ReadView {
  /** The backend's name, for logs and diagnostics: `memory`, `sqlite`, `postgres`. */
  readonly backend: string;
  /** The highest committed revision (0 for an empty store). */
  currentRevision(): Promise<number>;
  /**
   * revisionNow is currentRevision read synchronously, offered only by a store whose revision
   * counter lives in this process (memory, SQLite): a per-request freshness check (the RBAC
   * authorizer's) then costs no promise. Absent where reading it needs a round trip (PostgreSQL).
   */
  revisionNow?(): number;
  /** transact runs `fn` atomically and exclusively; see the file comment. */
  transact<R>(fn: (tx: Transaction) => Promise<R>): Promise<R>;
  /**
   * changesSince returns the committed changes with revision > `revision`, oldest first, at most
   * `limit` of them. Throws CompactedError when the feed no longer reaches back that far.
   */
  changesSince(revision: number, options?: { readonly kinds?: readonly string[]; readonly limit?: number }): Promise<Change[]>;
  /**
   * subscribe delivers every change committed after `fromRevision` (first the backlog from the
   * feed, then live changes as they commit), in order, exactly once each.
   */
  subscribe(fromRevision: number, listener: ChangeListener, options?: SubscribeOptions): Promise<Subscription>;
  /**
   * The oldest revision the change feed can still resume from: `changesSince` and `subscribe`
   * accept it and anything newer, and throw CompactedError below it.
   */
  oldestResumableRevision(): Promise<number>;
  /** leases coordinate the processes sharing this store (see Leases). */
  readonly leases: Leases;
  /** uploads hold the bytes of resumable upload sessions, reachable from every process on this store. */
  readonly uploads: UploadBytes;
  /** files hold immutable byte files (large raw messages, bundles) named by records, reachable from every process on this store. */
  readonly files: FileBytes;
  /**
   * exportState runs `fn` while no transaction commits (on any replica), handing it the
   * revision and a reader of every record in (kind, key) order, read in pages. Keep `fn` to
   * reading (this store's files and uploads included): a `transact` inside it waits forever.
   * Snapshots are built on it.
   */
  exportState<R>(fn: (revision: number, records: () => AsyncIterable<StoredRecord>) => Promise<R>): Promise<R>;
  /**
   * replaceState replaces every record of every kind with `records` (which keep their create
   * and last revisions), all or nothing: when `records` or the backend fails, the previous
   * records stay as they were. The store's revision becomes one above both its own and
   * `revision` (the restored state's), the change feed starts over there (every older resume
   * point is compacted) and every subscriber is told (SubscribeOptions.onReset), on every
   * replica. Returns the new revision. Snapshot restore and reset are built on it.
   */
  replaceState(records: AsyncIterable<StoredRecord>, revision: number): Promise<number>;
  /** health checks that the backend answers now (a round trip to the database for postgres). */
  health(): Promise<StoreHealth>;
  /** close flushes and releases the backend; further calls fail. */
  close(): Promise<void>;
}

/**
 * Leases grant named, expiring ownership among the processes that share a store, so work that
 * must happen once (driving an Operation, a background controller) has exactly one owner at a
 * time, and a new owner once the old one stops renewing (it died). A backend only one process
 * can open (memory, SQLite) grants every lease to its process: `shared` is false there.
 */
export interface Leases {
  /** shared is true when other processes may hold leases on this store (postgres). */
  readonly shared: boolean;
  /**
   * acquire takes `name` for `holder`, or extends the hold `holder` already has, for `ttlMs`
   * from now (the database's clock). False while another holder's lease has not expired.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** release gives `name` up if `holder` holds it, so another can take it at once. */
  release(name: string, holder: string): Promise<void>;
}

/** StoreHealth is what /healthz reports about the store. */
export interface StoreHealth {
  readonly backend: string;
  readonly ok: boolean;
  /** Why it is not ok (the database's error), when it is not. */
  readonly detail?: string;
}

/** ConflictError is thrown when a write's expectRevision does not hold. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    readonly kind: string,
    readonly key: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`conflict on ${kind}/${key}: expected revision ${expected}, found ${actual}`);
  }
}

/** CompactedError is thrown when a resume point is older than the retained change feed. */
export class CompactedError extends Error {
  override readonly name = 'CompactedError';
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`revision ${requested} is compacted; the oldest resumable revision is ${oldest}`);
  }
}

/**
 * StoreUnavailableError is thrown while the store's database cannot be reached (the backend
 * keeps reconnecting); families answer it with their 503.
 */
export class StoreUnavailableError extends UnavailableError {
  override readonly name = 'StoreUnavailableError';
  constructor(override readonly cause: unknown) {
    super(`the store's database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** StoreClosedError is thrown by any call on a closed store. */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('the store is closed');
  }
}
