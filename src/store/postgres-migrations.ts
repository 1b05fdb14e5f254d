import type pg from 'pg';
import { SchemaTooNewError } from './migrations.ts';

/** PostgresMigration is one step of the PostgreSQL schema; `sql` runs inside the migration transaction. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * POSTGRES_MIGRATIONS is the ordered schema history of the PostgreSQL backend. Append only: a
 * released migration is never edited, because shared databases have already run it. Every
 * table is prefixed `fogbank_` so the schema can live in a database that holds other things.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'records, change feed, meta, leases and upload chunks',
    // COLLATE "C" compares bytes of UTF-8, i.e. code points: the key order every backend uses.
    // fogbank_meta holds the revision counter (updated by every writing transaction while it holds
    // the write lock, so it is also the source of currentRevision) and the compaction point.
    sql: `
      CREATE TABLE fogbank_meta (
        key text PRIMARY KEY,
        value bigint NOT NULL
      );
      INSERT INTO fogbank_meta (key, value) VALUES ('revision', 0), ('oldest', 0);
      CREATE TABLE fogbank_records (
        kind text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value text NOT NULL,
        create_revision bigint NOT NULL,
        revision bigint NOT NULL,
        PRIMARY KEY (kind, key)
      );
      CREATE TABLE fogbank_changes (
        revision bigint PRIMARY KEY,
        type text NOT NULL,
        kind text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value text NOT NULL,
        create_revision bigint NOT NULL
      );
      CREATE INDEX fogbank_changes_kind ON fogbank_changes (kind, revision);
      CREATE TABLE fogbank_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE fogbank_upload_chunks (
        upload text COLLATE "C" NOT NULL,
        "offset" bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (upload, "offset")
      );
    `,
  },
  {
    version: 2,
    name: 'shared files',
    // size is NULL while a file is being written; written_at is when it was started, then
    // finished (sweeps spare files younger than their grace). Chunks go with their file.
    sql: `
      CREATE TABLE fogbank_files (
        id text COLLATE "C" PRIMARY KEY,
        size bigint,
        written_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE fogbank_file_chunks (
        file text COLLATE "C" NOT NULL REFERENCES fogbank_files (id) ON DELETE CASCADE,
        "offset" bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (file, "offset")
      );
    `,
  },
];

/** MIGRATION_LOCK is the advisory lock key that serialises migrations of replicas starting at once. */
const MIGRATION_LOCK = 0x666f67_01;

/**
 * migratePostgres brings the database up to the last of `migrations`, exactly once however many
 * replicas start at the same moment: each takes a transaction-level advisory lock first, so the
 * second waits for the first to commit and then finds nothing to do. A database whose version
 * is newer than this code knows is refused (SchemaTooNewError). Returns the versions applied.
 */
export async function migratePostgres(client: pg.ClientBase, where: string, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS fogbank_schema (version integer NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const current = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM fogbank_schema')).rows[0]?.v ?? 0);
    if (current > known) throw new SchemaTooNewError(where, current, known, 'upgrade fogbank, or point --store at another database');
    const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO fogbank_schema (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    await client.query('COMMIT');
    return pending.map((m) => m.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
