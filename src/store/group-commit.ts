import { Mutex } from './mutex.ts';
import type { QueuedTransaction } from './queued-transaction.ts';
import { StoreClosedError, type Transaction } from './store.ts';

/** GroupCommitOptions are what a SQL backend's group commit needs from it. */
export interface GroupCommitOptions {
  /** maxGroup is the most transactions one commit takes. */
  readonly maxGroup: number;
  /** turns is how many turns of the event loop a group waits, after its first transaction, for others to join (default 0). */
  readonly turns?: number;
  /**
   * commit runs `group` as one database transaction, in order, and settles every job in it
   * (resolving none before the shared commit is done). Throwing fails the jobs it left unsettled.
   */
  readonly commit: (group: readonly QueuedTransaction[]) => Promise<void>;
  /** isClosed says the store has closed: jobs still queued then fail with StoreClosedError. */
  readonly isClosed: () => boolean;
}

/**
 * GroupCommit is the queue-and-drain in front of a SQL backend's commits (SQLite, PostgreSQL):
 * `transact` calls that queue while a group commits, or arrive within `turns` turns of the event
 * loop of a group's first, are committed together, up to `maxGroup` at a time, one group after
 * another. The backend supplies the commit of one group; `exclusive` runs work (closing) after
 * every group already queued.
 */
export class GroupCommit {
  readonly #mutex = new Mutex();
  readonly #queue: QueuedTransaction[] = [];
  readonly #options: GroupCommitOptions;
  #draining = false;

  constructor(options: GroupCommitOptions) {
    this.#options = options;
  }

  /** submit queues `fn` and settles with its outcome once the group it joins is committed. */
  submit<R>(fn: (tx: Transaction) => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (result: unknown) => void, reject });
      if (this.#draining) return;
      this.#draining = true;
      // The mutex slot is taken now, which keeps an exclusive() called meanwhile after this group.
      void this.#mutex.run(async () => {
        for (let turn = 0; turn < (this.#options.turns ?? 0); turn++) await new Promise((next) => setImmediate(next));
        await this.#drain();
      });
    });
  }

  /** queued is how many transactions wait for a group (the backend may prepare the next one's commit). */
  get queued(): number {
    return this.#queue.length;
  }

  /** exclusive runs `fn` alone, after every transaction queued before it has been committed. */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.#mutex.run(fn);
  }

  /** Commits queued transactions, a group at a time, until the queue is empty. */
  async #drain(): Promise<void> {
    const { maxGroup, commit, isClosed } = this.#options;
    try {
      while (this.#queue.length > 0) {
        const group = this.#queue.splice(0, maxGroup);
        if (isClosed()) {
          for (const job of group) job.reject(new StoreClosedError());
          continue;
        }
        try {
          await commit(group);
        } catch (error) {
          // Rejecting a job the commit already settled is a no-op.
          for (const job of group) job.reject(error);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
