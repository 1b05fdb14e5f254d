import pg from 'pg';
import { isConnectionFailure } from './postgres-connection.ts';
import { countRecords, queryAll, selectRecord, selectRecords } from './postgres-sql.ts';
import { toRecord, type RecordRow } from './sql-rows.ts';
import {
  ConflictError,
  type Change,
  type ChangeType,
  type ListOptions,
  type PutRequest,
  type StoredRecord,
  type Transaction,
  type WriteOptions,
} from './store.ts';

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

// The compare-and-swap form: writes only when the record's revision (0: absent) is $5, and
// reports the revision it found, so the check and the write are one round trip.
const PUT_IF = `WITH cur AS (
  SELECT revision FROM fogbank_records WHERE kind = $1 AND key = $2
), up AS (
  INSERT INTO fogbank_records (kind, key, value, create_revision, revision)
  SELECT $1, $2, $3, $4, $4 WHERE coalesce((SELECT revision FROM cur), 0) = $5::int8
  ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, revision = excluded.revision
  RETURNING create_revision
), ch AS (
  INSERT INTO fogbank_changes (revision, type, kind, key, value, create_revision)
  SELECT $4, CASE WHEN create_revision = $4 THEN 'created' ELSE 'updated' END, $1, $2, $3, create_revision FROM up
  RETURNING create_revision
)
SELECT coalesce((SELECT revision FROM cur), 0) AS actual, (SELECT create_revision FROM ch) AS create_revision`;

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

// Many records in one statement: each row upserted and its change appended, as PUT does; a row
// marked create-only is left alone when its record exists, and is then missing from the answer.
const PUT_MANY = `WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::bool[]) AS t(kind, key, value, revision, create_only)
), up AS (
  INSERT INTO fogbank_records AS r (kind, key, value, create_revision, revision)
  SELECT kind, key, value, revision, revision FROM input
  ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, revision = excluded.revision
  WHERE NOT EXISTS (SELECT 1 FROM input i WHERE i.kind = excluded.kind AND i.key = excluded.key AND i.create_only)
  RETURNING r.kind, r.key, r.create_revision, r.revision
), ch AS (
  INSERT INTO fogbank_changes (revision, type, kind, key, value, create_revision)
  SELECT up.revision, CASE WHEN up.create_revision = up.revision THEN 'created' ELSE 'updated' END, up.kind, up.key, input.value, up.create_revision
  FROM up JOIN input ON input.kind = up.kind AND input.key = up.key
)
SELECT kind, key, create_revision FROM up`;

/** PUT_MANY_BYTES bounds the JSON one PUT_MANY statement carries (a bigger batch is sent in several). */
const PUT_MANY_BYTES = 4 * 1024 * 1024;

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
  readonly #inGroup: boolean;
  #revision: number;
  #open = true;
  #savepoint = false;
  #poisoned = false;

  /**
   * `inGroup` says other transactions share the PostgreSQL transaction: then this one sets a
   * savepoint before its first write (sent with that write, no extra round trip), so a throw
   * can undo its writes alone. Read-only functions need none.
   */
  constructor(client: pg.PoolClient, revision: number, inGroup: boolean) {
    this.#client = client;
    this.#revision = revision;
    this.#inGroup = inGroup;
  }

  /** savepoint is true when this transaction's writes are behind `SAVEPOINT job`. */
  get savepoint(): boolean {
    return this.#savepoint;
  }

  /**
   * poisoned is true when a statement failed outside a savepoint: PostgreSQL then refuses the
   * rest of the shared transaction, so the whole group must be rolled back.
   */
  get poisoned(): boolean {
    return this.#poisoned;
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
    return (await this.#guarded(() => selectRecord(this.#client, kind, key))) as StoredRecord<T> | undefined;
  }

  async list<T>(kind: string, options: ListOptions = {}): Promise<StoredRecord<T>[]> {
    this.#guard();
    return (await this.#guarded(() => selectRecords(this.#client, kind, options))) as StoredRecord<T>[];
  }

  async count(kind: string, options: Pick<ListOptions, 'prefix'> = {}): Promise<number> {
    this.#guard();
    return this.#guarded(() => countRecords(this.#client, kind, options.prefix));
  }

  async put<T>(kind: string, key: string, value: T, options?: WriteOptions): Promise<StoredRecord<T>> {
    this.#guard();
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`the value of ${kind}/${key} is not JSON-serialisable`);
    const expected = options?.expectRevision;
    const id = writeKey(kind, key);
    const own = this.#written.get(id);
    // A record this transaction wrote is checked here; otherwise the statement checks it.
    if (expected !== undefined && own !== undefined && (own?.revision ?? 0) !== expected) throw new ConflictError(kind, key, expected, own?.revision ?? 0);
    const revision = this.#revision + 1;
    let createRevision: number;
    if (expected === undefined || own !== undefined) {
      const result = await this.#write<{ create_revision: number }>('fogbank_put', PUT, [kind, key, json, revision]);
      createRevision = result.rows[0]?.create_revision ?? revision;
    } else {
      const result = await this.#write<{ actual: number; create_revision: number | null }>('fogbank_put_if', PUT_IF, [kind, key, json, revision, expected]);
      const row = result.rows[0]!;
      if (row.create_revision === null) throw new ConflictError(kind, key, expected, row.actual);
      createRevision = row.create_revision;
    }
    const type: ChangeType = createRevision === revision ? 'created' : 'updated';
    this.#revision = revision;
    const record: StoredRecord<T> = { kind, key, value, createRevision, revision };
    this.#written.set(id, record);
    this.changes.push({ type, kind, key, value, revision, createRevision });
    return record;
  }

  /** getMany answers own writes from memory and reads the rest in one statement. */
  async getMany<T>(kind: string, keys: readonly string[]): Promise<(StoredRecord<T> | undefined)[]> {
    this.#guard();
    const missing = [...new Set(keys.filter((key) => !this.#written.has(writeKey(kind, key))))];
    const found = new Map<string, StoredRecord>();
    if (missing.length > 0) {
      const result = await this.#guarded(() =>
        this.#client.query<RecordRow>({
          name: 'fogbank_get_many',
          text: 'SELECT kind, key, value, create_revision, revision FROM fogbank_records WHERE kind = $1 AND key = ANY($2::text[])',
          values: [kind, missing],
        }),
      );
      for (const row of result.rows) found.set(row.key, toRecord(row));
    }
    return keys.map((key) => {
      const own = this.#written.get(writeKey(kind, key));
      if (own !== undefined) return (own ?? undefined) as StoredRecord<T> | undefined;
      return found.get(key) as StoredRecord<T> | undefined;
    });
  }

  /**
   * putMany writes a batch in one statement (PUT_MANY, a chunk of at most PUT_MANY_BYTES of
   * values at a time) when its keys are distinct and its preconditions are ones that statement
   * can check: none, a create (`expectRevision: 0`), or any on a record this transaction already
   * wrote (checked here, before anything is sent). Anything else is written put by put.
   */
  async putMany(writes: readonly PutRequest[]): Promise<StoredRecord[]> {
    this.#guard();
    const plans = writes.map((write, i) => {
      const json = JSON.stringify(write.value);
      if (json === undefined) throw new TypeError(`the value of ${write.kind}/${write.key} is not JSON-serialisable`);
      const id = writeKey(write.kind, write.key);
      const own = this.#written.get(id);
      return { write, json, id, own, revision: this.#revision + i + 1, expected: write.options?.expectRevision };
    });
    const distinct = new Set(plans.map((plan) => plan.id)).size === plans.length;
    if (plans.length < 2 || !distinct || plans.some((plan) => plan.expected !== undefined && plan.expected !== 0 && plan.own === undefined)) {
      const written: StoredRecord[] = [];
      for (const write of writes) written.push(await this.put(write.kind, write.key, write.value, write.options));
      return written;
    }
    for (const plan of plans) {
      const actual = plan.own === undefined ? undefined : (plan.own?.revision ?? 0);
      if (plan.expected !== undefined && actual !== undefined && actual !== plan.expected)
        throw new ConflictError(plan.write.kind, plan.write.key, plan.expected, actual);
    }
    if (this.#inGroup && !this.#savepoint) {
      await this.#guarded(() => this.#client.query('SAVEPOINT job'));
      this.#savepoint = true;
    }
    const created = new Map<string, number>();
    for (const chunk of chunked(plans, (plan) => plan.json.length, PUT_MANY_BYTES)) {
      const createOnly = chunk.map((plan) => plan.expected === 0 && plan.own === undefined);
      const result = await this.#guarded(() =>
        this.#client.query<{ kind: string; key: string; create_revision: number }>({
          name: 'fogbank_put_many',
          text: PUT_MANY,
          values: [
            chunk.map((plan) => plan.write.kind),
            chunk.map((plan) => plan.write.key),
            chunk.map((plan) => plan.json),
            chunk.map((plan) => plan.revision),
            createOnly,
          ],
        }),
      );
      for (const row of result.rows) created.set(writeKey(row.kind, row.key), Number(row.create_revision));
      const refused = chunk.find((plan) => !created.has(plan.id));
      if (refused !== undefined) {
        const current = await this.#guarded(() => selectRecord(this.#client, refused.write.kind, refused.write.key));
        throw new ConflictError(refused.write.kind, refused.write.key, refused.expected ?? 0, current?.revision ?? 0);
      }
    }
    const written = plans.map((plan) => {
      const createRevision = created.get(plan.id)!;
      const record: StoredRecord = { kind: plan.write.kind, key: plan.write.key, value: plan.write.value, createRevision, revision: plan.revision };
      this.#written.set(plan.id, record);
      this.changes.push({
        type: createRevision === plan.revision ? 'created' : 'updated',
        kind: record.kind,
        key: record.key,
        value: record.value,
        revision: plan.revision,
        createRevision,
      });
      return record;
    });
    this.#revision += plans.length;
    return written;
  }

  async delete<T>(kind: string, key: string, options?: WriteOptions): Promise<StoredRecord<T> | undefined> {
    this.#guard();
    const expected = options?.expectRevision;
    const revision = this.#revision + 1;
    const result = await this.#write<{ value: string | null; create_revision: number | null; revision: number | null; actual: number | null }>(
      'fogbank_delete',
      DELETE,
      [kind, key, revision, expected ?? null],
    );
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

  /** write runs a writing statement, opening the savepoint first when this transaction needs one. */
  async #write<R extends pg.QueryResultRow>(name: string, text: string, values: readonly (string | number | null)[]): Promise<pg.QueryResult<R>> {
    if (!this.#inGroup || this.#savepoint) return this.#guarded(() => this.#client.query<R>({ name, text, values: [...values] }));
    // One round trip for both: the simple protocol takes several statements, but no parameters,
    // so the values go in as literals (escapeLiteral quotes them for standard_conforming_strings).
    const inline = inlined(text, values);
    const results = await this.#guarded(() => queryAll<R>(this.#client, `SAVEPOINT job; ${inline}`));
    this.#savepoint = true;
    return results[results.length - 1]!;
  }

  /** guarded runs a statement, noting when its failure leaves the shared transaction unusable. */
  async #guarded<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      if (!this.#savepoint && !isConnectionFailure(error)) this.#poisoned = true;
      throw error;
    }
  }

  #guard(): void {
    if (!this.#open) throw new Error('the transaction has finished: use its handle only inside the transact function');
  }
}

/** chunked splits items, in order, into runs whose sizes add up to at most `limit` (an item larger than that is a run of its own). */
function chunked<T>(items: readonly T[], size: (item: T) => number, limit: number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let total = 0;
  for (const item of items) {
    if (run.length > 0 && total + size(item) > limit) {
      runs.push(run);
      run = [];
      total = 0;
    }
    run.push(item);
    total += size(item);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** inlined writes a statement's `$n` parameters in as literals, for the simple protocol. */
function inlined(text: string, values: readonly (string | number | null)[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1] ?? null));
}

function literal(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return pg.escapeLiteral(value);
}

function writeKey(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}
