import { compareKeys, SortedKeys } from './sorted-keys.ts';
import type { Change, ListOptions, StoredRecord } from './store.ts';

/** Staged is a transaction's or a commit group's own write of one record: the record, or null once deleted. */
export type Staged = ReadonlyMap<string, ReadonlyMap<string, StoredRecord | null>>;

interface Waiter {
  readonly revision: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * WatchCache is this replica's copy of every record of a PostgreSQL store, at one revision, kept
 * by the change feed as the apiserver's watch cache is kept by etcd's watch: loaded once from a
 * snapshot, then moved forward by every committed change in revision order (local commits
 * straight from the transaction, other replicas' from the changes table). Reads are answered
 * from it once it has reached a revision the caller read from the database (`reached`), which is
 * KEP-2340's consistent read from cache: as linearizable as reading the table, without the
 * query, the row transfer and the JSON.parse. Values are shared with callers (the store
 * contract treats them as immutable), so a record unchanged since the last read is the same
 * object, and what was serialised for it can be reused.
 */
export class WatchCache {
  #records = new Map<string, Map<string, StoredRecord>>();
  #order = new Map<string, SortedKeys>();
  /** -1 until the first snapshot is in. */
  #revision = -1;
  readonly #waiters = new Set<Waiter>();

  /** revision is the revision the cache holds the state of (-1 before it is loaded). */
  get revision(): number {
    return this.#revision;
  }

  /** load replaces the whole state with a snapshot taken at `revision`. */
  load(revision: number, records: readonly StoredRecord[]): void {
    const byKind = new Map<string, Map<string, StoredRecord>>();
    const order = new Map<string, SortedKeys>();
    for (const record of records) {
      let byKey = byKind.get(record.kind);
      if (byKey === undefined) {
        byKey = new Map();
        byKind.set(record.kind, byKey);
        order.set(record.kind, new SortedKeys());
      }
      if (!byKey.has(record.key)) order.get(record.kind)!.add(record.key);
      byKey.set(record.key, record);
    }
    this.#records = byKind;
    this.#order = order;
    this.#revision = revision;
    this.#settle();
  }

  /** apply moves the state forward by committed changes, in revision order; older ones are ignored. */
  apply(changes: readonly Change[]): void {
    if (this.#revision < 0) return;
    for (const change of changes) {
      if (change.revision <= this.#revision) continue;
      if (change.type === 'deleted') this.#remove(change.kind, change.key);
      else this.#set({ kind: change.kind, key: change.key, value: change.value, createRevision: change.createRevision, revision: change.revision });
      this.#revision = change.revision;
    }
    this.#settle();
  }

  /**
   * reached resolves once the cache holds revision `revision` or a later one. `behind` is called
   * (once) when it does not yet, to have the feed look for what is missing; past `timeoutMs` the
   * wait fails with `timeout()`.
   */
  reached(revision: number, behind: () => void, timeoutMs: number, timeout: () => unknown): Promise<void> {
    if (this.#revision >= revision) return Promise.resolve();
    behind();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(timeout());
      }, timeoutMs);
      const waiter: Waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** fail rejects every wait (the store closed). */
  fail(error: unknown): void {
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters.clear();
  }

  /** get reads one record, `staged` writes first (innermost first). */
  get(kind: string, key: string, staged: readonly Staged[] = []): StoredRecord | undefined {
    for (const layer of staged) {
      const own = layer.get(kind)?.get(key);
      if (own !== undefined) return own ?? undefined;
    }
    return this.#records.get(kind)?.get(key);
  }

  /** list reads records in key order as ListOptions say, `staged` writes (innermost first) over the cached state. */
  list(kind: string, options: ListOptions, staged: readonly Staged[] = []): StoredRecord[] {
    if (options.limit !== undefined && options.limit <= 0) return [];
    const byKey = this.#records.get(kind);
    const order = this.#order.get(kind);
    const touched = staged.filter((layer) => layer.has(kind));
    if (touched.length === 0) {
      if (byKey === undefined || order === undefined) return [];
      return order.range(options.prefix, options.after, options.limit).map((key) => byKey.get(key)!);
    }
    const keys = new Set(order?.range(options.prefix, options.after, undefined) ?? []);
    for (const layer of touched) {
      for (const key of layer.get(kind)!.keys()) {
        if ((options.prefix === undefined || key.startsWith(options.prefix)) && (options.after === undefined || key > options.after)) keys.add(key);
      }
    }
    const out: StoredRecord[] = [];
    for (const key of [...keys].sort(compareKeys)) {
      const record = this.get(kind, key, touched);
      if (record === undefined) continue;
      out.push(record);
      if (options.limit !== undefined && out.length === options.limit) break;
    }
    return out;
  }

  /** count counts records, optionally under a prefix, `staged` writes included. */
  count(kind: string, prefix: string | undefined, staged: readonly Staged[] = []): number {
    if (!staged.some((layer) => layer.has(kind))) return this.#order.get(kind)?.count(prefix) ?? 0;
    return this.list(kind, prefix === undefined ? {} : { prefix }, staged).length;
  }

  #set(record: StoredRecord): void {
    let byKey = this.#records.get(record.kind);
    let order = this.#order.get(record.kind);
    if (byKey === undefined || order === undefined) {
      byKey = new Map();
      order = new SortedKeys();
      this.#records.set(record.kind, byKey);
      this.#order.set(record.kind, order);
    }
    if (!byKey.has(record.key)) order.add(record.key);
    byKey.set(record.key, record);
  }

  #remove(kind: string, key: string): void {
    if (this.#records.get(kind)?.delete(key) === true) this.#order.get(kind)!.remove(key);
  }

  #settle(): void {
    for (const waiter of this.#waiters) {
      if (waiter.revision > this.#revision) continue;
      this.#waiters.delete(waiter);
      waiter.resolve();
    }
  }
}
