import { BoundedMap } from '../lib/bounded-map.ts';
import type { StoredRecord } from './store.ts';

/**
 * RecordCache keeps recently written or read records, already parsed, so a read of an unchanged
 * record skips JSON.parse. An entry checked against the row's current revision (`get`) is
 * trusted whatever wrote the row. The SQLite store also keeps every entry at its committed
 * revision, setting or forgetting it with each commit (its data directory lock makes it the only
 * writer), so outside a transaction an entry is the committed record itself (`committed`).
 * Cached values are shared between callers: the store contract treats values as immutable.
 */
export class RecordCache {
  readonly #entries: BoundedMap<string, StoredRecord>;

  constructor(capacity: number) {
    this.#entries = new BoundedMap(capacity);
  }

  /** get returns the cached record for (kind, key) when it is exactly at `revision`. */
  get(kind: string, key: string, revision: number): StoredRecord | undefined {
    const record = this.#entries.get(cacheKey(kind, key));
    return record !== undefined && record.revision === revision ? record : undefined;
  }

  /**
   * committed returns the cached record for (kind, key) without checking its revision: only for
   * an owner that updates the cache with every commit, reading outside any transaction.
   */
  committed(kind: string, key: string): StoredRecord | undefined {
    return this.#entries.get(cacheKey(kind, key));
  }

  /** set remembers a committed record, evicting the oldest insertion when full. */
  set(record: StoredRecord): void {
    // Setting again makes the entry the newest, so eviction is least-recently-written.
    this.#entries.set(cacheKey(record.kind, record.key), record);
  }

  /** forget drops (kind, key), after a delete. */
  forget(kind: string, key: string): void {
    this.#entries.delete(cacheKey(kind, key));
  }

  /** clear empties the cache. */
  clear(): void {
    this.#entries.clear();
  }
}

function cacheKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}
