import pg from 'pg';
import type { StagedWrite } from './postgres-transaction.ts';
import { toChange, toRecord, type ChangeRow, type RecordRow } from './sql-rows.ts';
import type { Change, StoredRecord } from './store.ts';

/**
 * The SQL of the PostgreSQL backend, one place. Named statements are prepared once per
 * connection by pg; multi-statement texts (simple protocol) save round trips where a
 * transaction starts and ends.
 */

/**
 * queryAll runs a multi-statement text (simple protocol) and returns one result per statement:
 * pg answers such a text with an array, which its typings do not say; a lone result is wrapped.
 */
export async function queryAll<R extends pg.QueryResultRow>(client: pg.ClientBase, text: string): Promise<pg.QueryResult<R>[]> {
  const results: pg.QueryResult<R> | pg.QueryResult<R>[] = await client.query<R>(text);
  return Array.isArray(results) ? results : [results];
}

/** CHANGES_CHANNEL is the NOTIFY channel a commit announces its last revision on. */
export const CHANGES_CHANNEL = 'fogbank_changes';

/** RESET_PREFIX starts the CHANGES_CHANNEL payload that announces a replaced state (`reset:<revision>`). */
export const RESET_PREFIX = 'reset:';

/** WRITE_LOCK is the advisory lock every writing transaction holds from BEGIN to COMMIT. */
export const WRITE_LOCK = 0x666f67_02;

/**
 * BEGIN_WRITE opens a writing transaction: it waits for the write lock (so writers of every
 * replica take turns, and revisions are assigned in commit order with no gaps), then reads the
 * revision counter and the compaction point under it.
 */
export const BEGIN_WRITE = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK}); SELECT key, value FROM fogbank_meta WHERE key IN ('revision', 'oldest')`;

/**
 * BEGIN_NEXT begins the next group's writing transaction in the round trip that commits the
 * previous one. It only tries the write lock (`locked` says whether it got it): PostgreSQL grants
 * a released lock to the replicas already waiting for it, so chaining never starves them, and a
 * transaction that found the lock taken is rolled back and begun again the waiting way.
 */
export const BEGIN_NEXT = `BEGIN; SELECT pg_try_advisory_xact_lock(${WRITE_LOCK}) AS locked; SELECT key, value FROM fogbank_meta WHERE key IN ('revision', 'oldest')`;

/** commitWrite is the end of a writing transaction that moved the revision to `revision`. */
export function commitWrite(revision: number, compactTo: number | undefined): string {
  const compact =
    compactTo === undefined
      ? ''
      : `DELETE FROM fogbank_changes WHERE revision <= ${compactTo}; UPDATE fogbank_meta SET value = ${compactTo} WHERE key = 'oldest'; `;
  // NOTIFY is delivered at COMMIT, in commit order, to every listening replica.
  return `UPDATE fogbank_meta SET value = ${revision} WHERE key = 'revision'; ${compact}SELECT pg_notify('${CHANGES_CHANNEL}', '${revision}'); COMMIT`;
}

/**
 * groupWrites is the SQL that applies a commit group's staged writes, in the order they were
 * made: every change appended to the feed, and each record touched left as its last write made
 * it (deleted, or upserted with its create and last revisions). The values go in as literals
 * (escapeLiteral quotes them for standard_conforming_strings), so the writes, the revision, the
 * NOTIFY and the COMMIT travel as one simple-protocol text: one round trip for the whole group.
 */
export function groupWrites(writes: readonly StagedWrite[]): string {
  if (writes.length === 0) return '';
  const last = new Map<string, StagedWrite>();
  const changes: string[] = [];
  for (const write of writes) {
    const { change, json } = write;
    const kind = pg.escapeLiteral(change.kind);
    const key = pg.escapeLiteral(change.key);
    changes.push(`(${change.revision}, '${change.type}', ${kind}, ${key}, ${pg.escapeLiteral(json)}, ${change.createRevision})`);
    last.set(`${change.kind}\u0000${change.key}`, write);
  }
  const deleted: string[] = [];
  const upserted: string[] = [];
  for (const { change, json } of last.values()) {
    const kind = pg.escapeLiteral(change.kind);
    const key = pg.escapeLiteral(change.key);
    if (change.type === 'deleted') deleted.push(`(${kind}, ${key})`);
    else upserted.push(`(${kind}, ${key}, ${pg.escapeLiteral(json)}, ${change.createRevision}, ${change.revision})`);
  }
  let text = `INSERT INTO fogbank_changes (revision, type, kind, key, value, create_revision) VALUES ${changes.join(', ')}; `;
  if (deleted.length > 0) text += `DELETE FROM fogbank_records WHERE (kind, key) IN (${deleted.join(', ')}); `;
  if (upserted.length > 0) {
    text +=
      `INSERT INTO fogbank_records (kind, key, value, create_revision, revision) VALUES ${upserted.join(', ')} ` +
      'ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, create_revision = excluded.create_revision, revision = excluded.revision; ';
  }
  return text;
}

/** SNAPSHOT_START opens a read-only snapshot and reads its revision (the watch cache loads every record from it). */
export const SNAPSHOT_START = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT value FROM fogbank_meta WHERE key = 'revision'";

/**
 * replaceStateStart begins replacing the whole state: under the write lock, the records and the
 * feed are emptied (the caller inserts the new records with insertRecords, then ends with
 * replaceStateEnd).
 */
export const REPLACE_STATE_START = `${BEGIN_WRITE}; DELETE FROM fogbank_records; DELETE FROM fogbank_changes`;

/** replaceStateEnd moves the revision and the compaction point to `revision`, announces the replacement and commits. */
export function replaceStateEnd(revision: number): string {
  return `UPDATE fogbank_meta SET value = ${revision} WHERE key IN ('revision', 'oldest'); SELECT pg_notify('${CHANGES_CHANNEL}', '${RESET_PREFIX}${revision}'); COMMIT`;
}

/** insertRecords inserts records as they are (revisions kept), in one statement. */
export async function insertRecords(db: Queryable, records: readonly StoredRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.query({
    name: 'fogbank_insert_records',
    text:
      'INSERT INTO fogbank_records (kind, key, value, create_revision, revision) ' +
      'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[])',
    values: [
      records.map((record) => record.kind),
      records.map((record) => record.key),
      records.map((record) => JSON.stringify(record.value)),
      records.map((record) => record.createRevision),
      records.map((record) => record.revision),
    ],
  });
}

/** selectRecordsAfter reads every record after (kind, key) in (kind, key) order, `limit` at a time (undefined: from the first). */
export async function selectRecordsAfter(db: Queryable, after: readonly [string, string] | undefined, limit: number): Promise<StoredRecord[]> {
  const result = await db.query<RecordRow>({
    name: after === undefined ? 'fogbank_all_first' : 'fogbank_all_after',
    text:
      'SELECT kind, key, value, create_revision, revision FROM fogbank_records ' +
      (after === undefined ? 'ORDER BY kind, key LIMIT $1' : 'WHERE (kind, key) > ($2, $3) ORDER BY kind, key LIMIT $1'),
    values: after === undefined ? [limit] : [limit, after[0], after[1]],
  });
  return result.rows.map(toRecord);
}

/** Queryable is a pool or a client: what reads run on. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * selectChanges reads the feed after `revision` together with the compaction point, in one
 * statement (one snapshot), so a compaction running meanwhile cannot open a silent gap.
 */
export async function selectChanges(
  db: Queryable,
  revision: number,
  kinds: readonly string[] | undefined,
  limit: number | undefined,
): Promise<{ oldest: number; changes: Change[] }> {
  const result = await db.query<ChangeRow & { oldest: number }>({
    name: 'fogbank_changes',
    text:
      'SELECT m.value AS oldest, c.revision, c.type, c.kind, c.key, c.value, c.create_revision FROM fogbank_meta m LEFT JOIN LATERAL (' +
      'SELECT * FROM fogbank_changes WHERE revision > $1 AND ($2::text[] IS NULL OR kind = ANY($2)) ORDER BY revision LIMIT $3' +
      ") c ON true WHERE m.key = 'oldest'",
    values: [revision, kinds === undefined ? null : [...kinds], limit ?? null],
  });
  const oldest = result.rows[0]?.oldest ?? 0;
  return { oldest, changes: result.rows.filter((row) => row.revision !== null).map(toChange) };
}

/** selectMeta reads one fogbank_meta value (`revision`, `oldest`). */
export async function selectMeta(db: Queryable, key: 'revision' | 'oldest'): Promise<number> {
  const result = await db.query<{ value: number }>({ name: `fogbank_meta_${key}`, text: 'SELECT value FROM fogbank_meta WHERE key = $1', values: [key] });
  return result.rows[0]?.value ?? 0;
}
