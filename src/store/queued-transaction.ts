import type { Transaction } from './store.ts';

/** DEFAULT_CHANGE_RETENTION is how many changes a backend's feed keeps by default before compaction. */
export const DEFAULT_CHANGE_RETENTION = 100_000;

/** DEFAULT_COMPACTION_BATCH is how far a SQL backend's feed may outgrow its retention before a commit trims it. */
export const DEFAULT_COMPACTION_BATCH = 1_000;

/** QueuedTransaction is a `transact` call waiting for its turn in a group commit (SQLite, PostgreSQL). */
export interface QueuedTransaction {
  readonly fn: (tx: Transaction) => Promise<unknown>;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}
