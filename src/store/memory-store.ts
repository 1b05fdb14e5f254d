import { compareKeys, SortedKeys } from './sorted-keys.ts';

/** compareKeys is re-exported for the store index. */
export { compareKeys };
import { ChangeHub, subscribeWithBacklog } from './change-hub.ts';
import { LocalLeases } from './local-leases.ts';
import { Mutex } from './mutex.ts';
import { MemoryFileBytes } from './file-bytes.ts';
import { MemoryUploadBytes } from './upload-bytes.ts';
import { DEFAULT_CHANGE_RETENTION } from './queued-transaction.ts';
import {
  CompactedError,
  ConflictError,
  StoreClosedError,
  type Change,
  type ChangeListener,
  type ListOptions,
  type PutRequest,
  type Store,
  type StoreHealth,
  type StoredRecord,
  type SubscribeOptions,
  type Subscription,
  type Transaction,
  type WriteOptions,
} from './store.ts';

/** FEED_SHED is how many dropped changes may sit before the feed's head before its array sheds them. */
const FEED_SHED = 4096;

/** MemoryStoreOptions tune the in-memory backend. */
export interface MemoryStoreOptions {
  /** How many changes the feed keeps for resumption (older ones are compacted). */
  readonly changeRetention?: number;
}

/** MemoryStore keeps everything in process memory: for tests and `--ephemeral`. */
export class MemoryStore implements Store {
  readonly backend = 'memory';
  readonly leases = new LocalLeases();
  readonly uploads = new MemoryUploadBytes();
  readonly files = new MemoryFileBytes();
  #records = new Map<string, Map<string, StoredRecord>>();
  /** Each kind's keys in list order, so a page costs the page (see sorted-keys.ts). */
  #order = new Map<string, SortedKeys>();
  /**
   * The feed is `#feed` from `#feedHead` on: dropping its oldest changes moves the head, and the
   * array sheds what lies before the head once that is FEED_SHED changes or as many as it keeps,
   * so a commit past the retention costs its own changes plus a share of one shift, not a shift
   * of every change kept (100,000 by default) per commit.
   */
  readonly #feed: Change[] = [];
  #feedHead = 0;
  readonly #hub = new ChangeHub();
  readonly #mutex = new Mutex();
  readonly #retention: number;
  #revision = 0;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#retention = options.changeRetention ?? DEFAULT_CHANGE_RETENTION;
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
    return this.#records.get(kind)?.get(key) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#check();
    const byKey = this.#records.get(kind);
    const order = this.#order.get(kind);
    if (byKey === undefined || order === undefined) return [];
    return order.range(options.prefix, options.after, options.limit).map((key) => byKey.get(key)!) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#check();
    return this.#order.get(kind)?.count(options.prefix) ?? 0;
  }

  // async, so a closed store rejects instead of throwing synchronously.
  async transact<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    this.#check();
    return this.#mutex.run(async () => {
      this.#check();
      const overlay = new Map<string, Map<string, StoredRecord | null>>();
      const pending: Change[] = [];
      let revision = this.#revision;
      let open = true;
      const guard = (): void => {
        if (!open) throw new Error('the transaction has finished: use its handle only inside the transact function');
      };
      const read = (kind: string, key: string): StoredRecord | undefined => {
        const staged = overlay.get(kind)?.get(key);
        if (staged !== undefined) return staged ?? undefined;
        return this.#records.get(kind)?.get(key);
      };
      const stage = (kind: string, key: string, record: StoredRecord | null): void => {
        let byKey = overlay.get(kind);
        if (byKey === undefined) {
          byKey = new Map();
          overlay.set(kind, byKey);
        }
        byKey.set(key, record);
      };
      const precondition = (kind: string, key: string, current: StoredRecord | undefined, options?: WriteOptions): void => {
        if (options?.expectRevision === undefined) return;
        const actual = current?.revision ?? 0;
        if (actual !== options.expectRevision) throw new ConflictError(kind, key, options.expectRevision, actual);
      };
      const put = <T>(kind: string, key: string, value: T, options?: WriteOptions): StoredRecord<T> => {
        guard();
        const current = read(kind, key);
        precondition(kind, key, current, options);
        revision += 1;
        const record: StoredRecord<T> = {
          kind,
          key,
          value,
          createRevision: current?.createRevision ?? revision,
          revision,
        };
        stage(kind, key, record);
        pending.push({ type: current ? 'updated' : 'created', kind, key, value, revision, createRevision: record.createRevision });
        return record;
      };
      const tx: Transaction = {
        get: async <T>(kind: string, key: string) => {
          guard();
          return read(kind, key) as StoredRecord<T> | undefined;
        },
        list: async <T>(kind: string, options: ListOptions = {}) => {
          guard();
          return this.#listWith(overlay.get(kind), kind, options) as StoredRecord<T>[];
        },
        count: async (kind: string, options: Pick<ListOptions, 'prefix'> = {}) => {
          guard();
          const staged = overlay.get(kind);
          if (staged === undefined) return this.#order.get(kind)?.count(options.prefix) ?? 0;
          return this.#listWith(staged, kind, options).length;
        },
        put: async <T>(kind: string, key: string, value: T, options?: WriteOptions) => put(kind, key, value, options),
        getMany: async <T>(kind: string, keys: readonly string[]) => {
          guard();
          return keys.map((key) => read(kind, key) as StoredRecord<T> | undefined);
        },
        // Each write as `put` does, in one go: no promise per write.
        putMany: async (writes: readonly PutRequest[]) => writes.map((write) => put(write.kind, write.key, write.value, write.options)),
        delete: async <T>(kind: string, key: string, options?: WriteOptions) => {
          guard();
          const current = read(kind, key);
          precondition(kind, key, current, options);
          if (current === undefined) return undefined;
          revision += 1;
          stage(kind, key, null);
          pending.push({ type: 'deleted', kind, key, value: current.value, revision, createRevision: current.createRevision });
          return current as StoredRecord<T>;
        },
      };
      let result: R;
      try {
        result = await fn(tx);
      } finally {
        // A handle leaked out of `fn` must not stage writes that would never commit.
        open = false;
      }
      for (const [kind, byKey] of overlay) {
        let target = this.#records.get(kind);
        if (target === undefined) {
          target = new Map();
          this.#records.set(kind, target);
        }
        let order = this.#order.get(kind);
        if (order === undefined) {
          order = new SortedKeys();
          this.#order.set(kind, order);
        }
        for (const [key, record] of byKey) {
          if (record === null) {
            if (target.delete(key)) order.remove(key);
          } else {
            if (!target.has(key)) order.add(key);
            target.set(key, record);
          }
        }
      }
      this.#revision = revision;
      this.#append(pending);
      this.#hub.publish(pending);
      return result;
    });
  }

  /**
   * #listWith lists a kind as a transaction sees it: the committed keys in order (sorted-keys.ts),
   * with `staged`, the transaction's own writes and deletions of the kind, merged in.
   */
  #listWith(staged: ReadonlyMap<string, StoredRecord | null> | undefined, kind: string, options: ListOptions): StoredRecord[] {
    const byKey = this.#records.get(kind);
    const order = this.#order.get(kind);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    if (staged === undefined) return (order?.range(options.prefix, options.after, options.limit) ?? []).map((key) => byKey!.get(key)!);
    const own = [...staged.keys()]
      .filter((key) => (options.prefix === undefined || key.startsWith(options.prefix)) && (options.after === undefined || key > options.after))
      .sort(compareKeys);
    // The committed keys a page can need: as many as the limit plus every key this transaction removed or replaced.
    const committed = order?.range(options.prefix, options.after, options.limit === undefined ? undefined : options.limit + own.length) ?? [];
    const out: StoredRecord[] = [];
    let i = 0;
    let j = 0;
    while (out.length < limit && (i < committed.length || j < own.length)) {
      const ours = own[j];
      const theirs = committed[i];
      if (ours !== undefined && (theirs === undefined || compareKeys(ours, theirs) <= 0)) {
        if (ours === theirs) i++;
        j++;
        const record = staged.get(ours);
        if (record !== null && record !== undefined) out.push(record);
      } else {
        i++;
        out.push(byKey!.get(theirs!)!);
      }
    }
    return out;
  }

  /** #append adds a commit's changes to the feed and drops the oldest beyond the retention. */
  #append(changes: readonly Change[]): void {
    const feed = this.#feed;
    for (const change of changes) feed.push(change);
    if (feed.length - this.#feedHead > this.#retention) this.#feedHead = feed.length - this.#retention;
    if (this.#feedHead > 0 && this.#feedHead >= Math.min(FEED_SHED, feed.length - this.#feedHead)) {
      feed.splice(0, this.#feedHead);
      this.#feedHead = 0;
    }
  }

  async changesSince(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number } = {}): Promise<Change[]> {
    this.#check();
    const oldest = await this.oldestResumableRevision();
    if (revision < oldest) throw new CompactedError(revision, oldest);
    const kinds = options.kinds === undefined ? undefined : new Set(options.kinds);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: Change[] = [];
    // The feed is sorted by revision: binary search for the first entry after `revision`.
    let lo = this.#feedHead;
    let hi = this.#feed.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#feed[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#feed.length && out.length < limit; i++) {
      const change = this.#feed[i]!;
      if (kinds === undefined || kinds.has(change.kind)) out.push(change);
    }
    return out;
  }

  async health(): Promise<StoreHealth> {
    this.#check();
    return { backend: this.backend, ok: true };
  }

  async oldestResumableRevision(): Promise<number> {
    this.#check();
    const first = this.#feed[this.#feedHead];
    return first === undefined ? this.#revision : first.revision - 1;
  }

  async subscribe(fromRevision: number, listener: ChangeListener, options: SubscribeOptions = {}): Promise<Subscription> {
    this.#check();
    return subscribeWithBacklog(this.#hub, fromRevision, listener, options, (after) =>
      this.changesSince(after, { ...(options.kinds ? { kinds: options.kinds } : {}), limit: 1000 }),
    );
  }

  async exportState<R>(fn: (revision: number, records: () => AsyncIterable<StoredRecord>) => Promise<R>): Promise<R> {
    this.#check();
    return this.#mutex.run(async () => {
      this.#check();
      const records = this.#records;
      const order = this.#order;
      async function* all(): AsyncGenerator<StoredRecord> {
        for (const kind of [...order.keys()].sort(compareKeys)) {
          const byKey = records.get(kind)!;
          for (const key of order.get(kind)!.range(undefined, undefined, undefined)) yield byKey.get(key)!;
        }
      }
      return fn(this.#revision, all);
    });
  }

  async replaceState(source: AsyncIterable<StoredRecord>, revision: number): Promise<number> {
    this.#check();
    return this.#mutex.run(async () => {
      this.#check();
      // Built aside and swapped in whole, so a failing source leaves the old state.
      const records = new Map<string, Map<string, StoredRecord>>();
      const order = new Map<string, SortedKeys>();
      for await (const record of source) {
        let byKey = records.get(record.kind);
        if (byKey === undefined) {
          byKey = new Map();
          records.set(record.kind, byKey);
          order.set(record.kind, new SortedKeys());
        }
        if (!byKey.has(record.key)) order.get(record.kind)!.add(record.key);
        byKey.set(record.key, { kind: record.kind, key: record.key, value: record.value, createRevision: record.createRevision, revision: record.revision });
      }
      this.#records = records;
      this.#order = order;
      this.#revision = Math.max(this.#revision, revision) + 1;
      this.#feed.length = 0;
      this.#feedHead = 0;
      this.#hub.reset(this.#revision);
      return this.#revision;
    });
  }

  async close(): Promise<void> {
    await this.#mutex.run(async () => {
      this.#closed = true;
    });
    this.uploads.close();
    this.files.close();
  }

  #check(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}
