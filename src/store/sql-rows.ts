import type { Change, ChangeType, StoredRecord } from './store.ts';

/** RecordRow is a row of the records table, as both SQL backends (SQLite, PostgreSQL) read it. */
export interface RecordRow {
  readonly kind: string;
  readonly key: string;
  readonly value: string;
  readonly create_revision: number;
  readonly revision: number;
}

/** ChangeRow is a row of the changes table, as both SQL backends read it. */
export interface ChangeRow {
  readonly revision: number;
  readonly type: string;
  readonly kind: string;
  readonly key: string;
  readonly value: string;
  readonly create_revision: number;
}

/** toRecord parses a record row. */
export function toRecord(row: RecordRow): StoredRecord {
  return { kind: row.kind, key: row.key, value: JSON.parse(row.value) as unknown, createRevision: row.create_revision, revision: row.revision };
}

/** toChange parses a change row. */
export function toChange(row: ChangeRow): Change {
  return changeWithValue(row, JSON.parse(row.value) as unknown);
}

/** changeWithValue reads a change row whose value the caller already holds (a cached record's), skipping the parse. */
export function changeWithValue(row: ChangeRow, value: unknown): Change {
  return { type: row.type as ChangeType, kind: row.kind, key: row.key, value, revision: row.revision, createRevision: row.create_revision };
}
