import type { Clock } from '../../../lib/clock.ts';
import type { RunSingleton, Singleton } from '../../../core/singletons.ts';
import type { Store, StoredRecord } from '../../../store/store.ts';
import type { BackgroundWork } from './background-work.ts';
import { OPERATIONS_KIND, type StoredOperation } from './operation.ts';
import { REQUEST_IDS_KIND, requestIdKey } from './request-id.ts';

/** RETENTION_SWEEP_MS is how often the elected replica deletes Operations past their retention. */
const RETENTION_SWEEP_MS = 10 * 60 * 1000;

/** MEMORY_MAX_RETAINED_OPERATIONS is the count limit for completed Operations when the store is in memory (`--ephemeral`). */
export const MEMORY_MAX_RETAINED_OPERATIONS = 10_000;

/** DEFAULT_RETENTION_MS keeps completed Operations for a day. */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** RetentionOptions are the Operation service's options retention reads. */
export interface RetentionOptions {
  readonly store: Store;
  readonly clock: Clock;
  /** How long completed Operations are kept. */
  readonly retentionMs?: number;
  /** How many completed Operations are kept at most (oldest completion forgotten first); undefined means no count limit. */
  readonly maxRetained?: number;
  /** Runs the periodic sweep on one of the replicas sharing the store; without it, here. */
  readonly singleton?: RunSingleton;
}

/**
 * OperationRetention forgets completed Operations (and their requestId entries): past the
 * retention period, by a periodic sweep on the replica elected for it, and past the count limit,
 * oldest completion first, in this process as completions are seen.
 */
export class OperationRetention {
  /** Keys of completed Operations in completion order, for the count limit (a queue: `#doneHead` is its front). */
  #doneQueue: string[] = [];
  #doneHead = 0;
  readonly #doneKeys = new Set<string>();
  #evicting = false;
  #sweeper: Singleton | undefined;

  constructor(
    private readonly options: RetentionOptions,
    private readonly background: BackgroundWork,
  ) {}

  /** cutoff is the end time before which a completed Operation is past retention. */
  cutoff(): number {
    return this.options.clock.now() - (this.options.retentionMs ?? DEFAULT_RETENTION_MS);
  }

  /** start runs the sweep on the elected replica: the first sweep over `records` (read by the caller once for everything) if it is elected now, a fresh read if later. */
  async start(records: readonly StoredRecord<StoredOperation>[]): Promise<void> {
    let unswept: readonly StoredRecord<StoredOperation>[] | undefined = records;
    this.#sweeper = await (this.options.singleton ?? runHere)('compute/operation-retention', () => {
      const first = unswept;
      unswept = undefined;
      return this.#sweepPeriodically(first);
    });
    // A replica elected later reads afresh.
    unswept = undefined;
  }

  /** stop ends the periodic sweep. */
  async stop(): Promise<void> {
    await this.#sweeper?.stop();
  }

  /** forget drops what was known of completions (the store's state was replaced). */
  forget(): void {
    this.#doneQueue = [];
    this.#doneHead = 0;
    this.#doneKeys.clear();
  }

  /** recall takes these completed records, in completion order. */
  recall(done: readonly StoredRecord<StoredOperation>[]): void {
    for (const record of [...done].sort((a, b) => (a.value.endTime ?? 0) - (b.value.endTime ?? 0))) this.completed(record.key);
  }

  /** retainedCount is how many completed Operations the count limit is tracking. */
  get retainedCount(): number {
    return this.#doneKeys.size;
  }

  /** deleted forgets a completion whose Operation was deleted. */
  deleted(key: string): void {
    this.#doneKeys.delete(key);
  }

  /** completed records a completion and, past the count limit, forgets the oldest completions. */
  completed(key: string): void {
    if (this.#doneKeys.has(key)) return;
    this.#doneKeys.add(key);
    this.#doneQueue.push(key);
    const max = this.options.maxRetained;
    // Evict in batches (a tenth of the limit at a time) so one insert does not pay one delete.
    if (max !== undefined && this.#doneKeys.size > max + Math.max(1, Math.floor(max / 10)) && !this.#evicting && !this.background.closed) {
      this.background.track(this.#evictOldest(max));
    }
  }

  /** sweep deletes completed Operations (and their requestId entries) older than the retention period; `records` saves the read when the caller has them. */
  async sweep(records?: readonly StoredRecord<StoredOperation>[]): Promise<number> {
    const { store } = this.options;
    const cutoff = this.cutoff();
    const expired = (records ?? (await store.list<StoredOperation>(OPERATIONS_KIND))).filter(
      (r) => r.value.status === 'DONE' && (r.value.endTime ?? 0) < cutoff,
    );
    if (expired.length === 0) return 0;
    await store.transact(async (tx) => {
      for (const record of expired) {
        await tx.delete(OPERATIONS_KIND, record.key, { expectRevision: record.revision }).catch(() => undefined);
        const op = record.value;
        if (op.clientOperationId !== undefined) await tx.delete(REQUEST_IDS_KIND, requestIdKey(op.project, op.scope, op.clientOperationId));
      }
    });
    return expired.length;
  }

  /** sweepPeriodically sweeps now (a new leader may take over from one that died) and every RETENTION_SWEEP_MS until stopped. */
  async #sweepPeriodically(records?: readonly StoredRecord<StoredOperation>[]): Promise<{ stop(): Promise<void> }> {
    let sweeping: Promise<unknown> = this.sweep(records).catch(() => undefined);
    await sweeping;
    const timer = setInterval(() => {
      sweeping = sweeping.then(() => this.sweep()).catch(() => undefined);
    }, RETENTION_SWEEP_MS);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await sweeping;
      },
    };
  }

  async #evictOldest(max: number): Promise<void> {
    this.#evicting = true;
    try {
      const victims: string[] = [];
      while (this.#doneKeys.size - victims.length > max && this.#doneHead < this.#doneQueue.length) {
        const key = this.#doneQueue[this.#doneHead++]!;
        if (this.#doneKeys.has(key)) victims.push(key);
      }
      if (this.#doneHead > 1024 && this.#doneHead * 2 > this.#doneQueue.length) {
        this.#doneQueue = this.#doneQueue.slice(this.#doneHead);
        this.#doneHead = 0;
      }
      await this.options.store.transact(async (tx) => {
        for (const key of victims) {
          const removed = await tx.delete<StoredOperation>(OPERATIONS_KIND, key);
          const op = removed?.value;
          if (op?.clientOperationId !== undefined) await tx.delete(REQUEST_IDS_KIND, requestIdKey(op.project, op.scope, op.clientOperationId));
        }
      });
      for (const key of victims) this.#doneKeys.delete(key);
    } finally {
      this.#evicting = false;
    }
  }
}

/** runHere runs singleton work in this process without an election (a lone OperationService). */
const runHere: RunSingleton = async (_name, start) => {
  const work = await start();
  let running = true;
  return {
    get running() {
      return running;
    },
    stop: async () => {
      running = false;
      await work.stop();
    },
  };
};
