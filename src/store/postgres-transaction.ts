import type pg from 'pg';
import { countRecords, selectRecord, selectRecords } from './postgres-sql.ts';
import { ConflictError, type Change, type ChangeType, type ListOptions, type StoredRecord, type Transaction, type WriteOptions } from './store.ts';

// One statement writes the record and appends its change; the change's type follows from
// whether the upsert kept an older create_revision.
const PUT = `WITH up AS (
  INSERT INTO fogbank_records (kind, key, value, create_revision, revision) VALUES ($1, $2, $3, $4, $4)
  ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, revision = excluded.revision
  RETURNING create_revision
)
INSERT INTO fogbank_changes (revision, type, kind, key, value, create_revision)
SELECT $4, CASE WHEN create_revision = $4 THEN 'created' ELSE 'updated' END, $1, $2, $3, create_revision FROM up
RETURNING create_revision`;

// Deletes (when the precondition holds), appends the change, and reports what was there: the
// sub-select sees the snapshot before the DELETE, so `actual` is the revision the check compares.
const DELETE = `WITH d AS (
  DELETE FROM fogbank_records WHERE kind = $1 AND key = $2 AND ($4::int8 IS NULL OR revision = $4)
  RETURNING value, create_revision, revision
), c AS (
  INSERT INTO fogbank_changes (revision, type, kind, key, value, create_revision)
  SELECT $3, 'deleted', $1, $2, value, create_revision FROM d
)
SELECT d.value, d.create_revision, d.revision,
  (SELECT revision FROM fogbank_records WHERE kind = $1 AND key = $2) AS actual
FROM (SELECT 1) AS one LEFT JOIN d ON true`;

/** A deleted record, in a transaction's own writes. */
const GONE = null;

/**
 * PostgresTransaction is the handle one `transact` function gets. Its statements run on the
 * writing connection inside the open PostgreSQL transaction, which holds the write lock, so
 * its reads see its own writes and nobody else writes meanwhile.
 */
export class PostgresTransaction implements Transaction {
  /** changes are this transaction's feed entries, in revision order. */
  readonly changes: Change[] = [];
  // Own writes answer repeated gets without a round trip.
  readonly #written = new Map<string, StoredRecord | typeof GONE>();
  readonly #client: pg.PoolClient;
  #revision: number;
  #open = true;

  constructor(client: pg.PoolClient, revision: number) {
    this.#client = client;
    this.#revision = revision;
  }

  /** revision is the revision of this transaction's last write (its start revision before any). */
  get revision(): number {
    return this.#revision;
  }

  /** finish invalidates the handle once the function has settled. */
  finish(): void {
    this.#open = false;
  }

  async get<T>(kind: string, key: string): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    const own = this.#written.get(writeKey(kind, key));
    if (own !== undefined) return (own ?? undefined) as StoredRecord<T> | undefined;
    return (await selectRecord(this.#client, kind, key)) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#guard();
    return (await selectRecords(this.#client, kind, options)) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#guard();
    return countRecords(this.#client, kind, options.prefix);
  }

  async put<T>(kind: string, key: string, value: T, options?: WriteOptions): Promise<StoredRecord<T>> {
    this.#guard();
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`the value of ${kind}/${key} is not JSON-serialisable`);
    const expected = options?.expectRevision;
    if (expected !== undefined) {
      const own = this.#written.get(writeKey(kind, key));
      const actual = own === undefined ? ((await selectRecord(this.#client, kind, key))?.revision ?? 0) : (own?.revision ?? 0);
      if (actual !== expected) throw new ConflictError(kind, key, expected, actual);
    }
    const revision = this.#revision + 1;
    const result = await this.#client.query<{ create_revision: number }>({ name: 'fogbank_put', text: PUT, values: [kind, key, json, revision] });
    const createRevision = result.rows[0]?.create_revision ?? revision;
    const type: ChangeType = createRevision === revision ? 'created' : 'updated';
    this.#revision = revision;
    const record: StoredRecord<T> = { kind, key, value, createRevision, revision };
    this.#written.set(writeKey(kind, key), record);
    this.changes.push({ type, kind, key, value, revision, createRevision });
    return record;
  }

  async delete<T>(kind: string, key: string, options?: WriteOptions): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    const expected = options?.expectRevision;
    const revision = this.#revision + 1;
    const result = await this.#client.query<{ value: string | null; create_revision: number | null; revision: number | null; actual: number | null }>({
      name: 'fogbank_delete',
      text: DELETE,
      values: [kind, key, revision, expected ?? null],
    });
    const row = result.rows[0]!;
    if (row.revision === null || row.value === null || row.create_revision === null) {
      const actual = row.actual ?? 0;
      if (expected !== undefined && expected !== actual) throw new ConflictError(kind, key, expected, actual);
      return undefined;
    }
    const id = writeKey(kind, key);
    const own = this.#written.get(id);
    const value = own !== undefined && own !== null ? own.value : (JSON.parse(row.value) as unknown);
    const record: StoredRecord = { kind, key, value, createRevision: row.create_revision, revision: row.revision };
    this.#revision = revision;
    this.#written.set(id, GONE);
    this.changes.push({ type: 'deleted', kind, key, value, revision, createRevision: row.create_revision });
    return record as StoredRecord<T>;
  }

  #guard(): void {
    if (!this.#open) throw new Error('the transaction has finished: use its handle only inside the transact function');
  }
}

function writeKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}
