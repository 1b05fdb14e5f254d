// The public surface of the store: other modules import from here, never from the files behind it.
export {
  CompactedError,
  ConflictError,
  StoreClosedError,
  StoreUnavailableError,
  type Change,
  type ChangeListener,
  type ChangeType,
  type Leases,
  type ListOptions,
  type ReadView,
  type Store,
  type StoreHealth,
  type StoredRecord,
  type SubscribeOptions,
  type Subscription,
  type Transaction,
  type WriteOptions,
} from './store.ts';
export { MemoryStore, compareKeys, type MemoryStoreOptions } from './memory-store.ts';
// The file-backed backends (and their drivers: a native SQLite binding, the PostgreSQL client) load
// only when such a store is opened (openStore): import them from their modules directly.
export type { SqliteStoreOptions } from './sqlite-store.ts';
export type { PostgresStoreOptions } from './postgres-store.ts';
export { LocalLeases } from './local-leases.ts';
export { SchemaTooNewError } from './migrations.ts';
export { openStore, SQLITE_FILE_NAME, type OpenStoreOptions } from './open-store.ts';
export { UploadOffsetError, type UploadBytes } from './upload-bytes.ts';
export { DEFAULT_LEADER_TTL_MS, Leader, type LeaderOptions, type SingletonWork, type StartSingleton } from './leader.ts';
export { HeldLease } from './held-lease.ts';
export { redactUrl } from './redact-url.ts';
export { Snapshots, type RestoreSummary, type SnapshotSummary, type SnapshotsOptions } from './snapshots.ts';
export { SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION, SnapshotError } from './snapshot-format.ts';
