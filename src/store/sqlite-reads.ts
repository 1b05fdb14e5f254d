import type { RecordCache } from './record-cache.ts';
import type { ListParams, ReadStatements } from './sqlite-statements.ts';
import { changeWithValue, toChange as parseChange, toRecord, type ChangeRow } from './sql-rows.ts';
import type { Change, ListOptions, StoredRecord } from './store.ts';

/** Tombstone marks a record deleted by a transaction that has not committed yet. */
export interface Tombstone {
  readonly kind: string;
  readonly key: string;
  readonly deleted: true;
}

/** StagedWrites are a transaction's own writes, keyed by `writeKey`. */
export type StagedWrites = ReadonlyMap<string, StoredRecord | Tombstone>;

/** readRecord reads one record through `view`, reusing the cached parse when the revision matches. */
export function readRecord(view: ReadStatements, cache: RecordCache, kind: string, key: string): StoredRecord | undefined {
  // Asking for the revision first lets an unchanged record skip both the value copy and JSON.parse.
  const revision = view.revisionOf.get(kind, key);
  if (revision === undefined) return undefined;
  return cache.get(kind, key, revision) ?? readRow(view, kind, key);
}

/**
 * readCommitted reads a row no uncommitted write has touched: the SQLite store sets or forgets the
 * cache entries of everything each commit wrote, before any reader runs, so a cached entry is the
 * committed record (no SQL at all), and a row read on a miss is committed too and is cached.
 */
export function readCommitted(view: ReadStatements, cache: RecordCache, kind: string, key: string): StoredRecord | undefined {
  const cached = cache.committed(kind, key);
  if (cached !== undefined) return cached;
  const record = readRow(view, kind, key);
  if (record !== undefined) cache.set(record);
  return record;
}

/** readRow reads and parses one record through `view`, for a caller that knows the cache does not hold it. */
function readRow(view: ReadStatements, kind: string, key: string): StoredRecord | undefined {
  const row = view.record.get(kind, key);
  return row === undefined ? undefined : toRecord(row);
}

/** listRecords runs the list variant that fits `options`, reusing staged and cached records. */
export function listRecords(view: ReadStatements, cache: RecordCache, kind: string, options: ListOptions, staged?: StagedWrites): StoredRecord[] {
  const params: ListParams[0] = { kind, limit: sqlLimit(options.limit) };
  if (options.prefix !== undefined) params.prefix = options.prefix;
  if (options.after !== undefined) params.after = options.after;
  const variant = (options.prefix !== undefined ? 1 : 0) + (options.after !== undefined ? 2 : 0);
  return view.list[variant]!.all(params).map((row) => {
    const own = staged?.get(writeKey(row.kind, row.key));
    if (own !== undefined && !isTombstone(own) && own.revision === row.revision) return own;
    return cache.get(row.kind, row.key, row.revision) ?? toRecord(row);
  });
}

/** countRecords counts a kind, optionally under a prefix. */
export function countRecords(view: ReadStatements, kind: string, options: Pick<ListOptions, 'prefix'>): number {
  return options.prefix === undefined ? (view.count.get(kind) ?? 0) : (view.countPrefix.get({ kind, prefix: options.prefix }) ?? 0);
}

/** readChanges reads the feed after `revision`; the caller has checked it is not compacted. */
export function readChanges(
  view: ReadStatements,
  cache: RecordCache,
  revision: number,
  options: { readonly kinds?: readonly string[]; readonly limit?: number },
): Change[] {
  const limit = sqlLimit(options.limit);
  const rows = options.kinds === undefined ? view.changes.all(revision, limit) : view.changesOfKinds.all(revision, JSON.stringify(options.kinds), limit);
  return rows.map((row) => toChange(row, cache));
}

function toChange(row: ChangeRow, cache: RecordCache): Change {
  // A change at the record's current revision has the cached record's value: skip the parse.
  const cached = cache.get(row.kind, row.key, row.revision);
  return cached !== undefined ? changeWithValue(row, cached.value) : parseChange(row);
}

// SQLite reads a negative LIMIT as "no limit".
function sqlLimit(limit: number | undefined): number {
  return limit === undefined ? -1 : Math.max(0, Math.floor(limit));
}

/** writeKey is the one-string identity of (kind, key) for maps. */
export function writeKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}

/** isTombstone tells a staged delete from a staged record. */
export function isTombstone(entry: StoredRecord | Tombstone): entry is Tombstone {
  return 'deleted' in entry;
}
