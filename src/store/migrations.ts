import type Database from 'better-sqlite3';

/** Migration is one step of the SQLite schema; `up` runs inside the migration transaction. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: Database.Database): void;
}

/**
 * MIGRATIONS is the ordered schema history. Append only: a released migration is never edited,
 * because databases in the field have already run it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, change feed and meta',
    up(db) {
      // records(kind, key) is the primary key, so `list` is an index range scan in key order.
      // TEXT uses the BINARY collation: memcmp over UTF-8, i.e. code point order, which matches
      // compareKeys (UTF-16 code units) unless a key holds a character beyond U+FFFF.
      db.exec(`
        CREATE TABLE records (
          kind TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          create_revision INTEGER NOT NULL,
          revision INTEGER NOT NULL,
          PRIMARY KEY (kind, key)
        );
        CREATE TABLE changes (
          revision INTEGER PRIMARY KEY,
          type TEXT NOT NULL,
          kind TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          create_revision INTEGER NOT NULL
        );
        -- meta.revision is a floor, written when the feed is compacted and on close; the current
        -- revision is max(meta.revision, newest change), so a commit need not rewrite this page.
        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value NOT NULL
        );
        INSERT INTO meta (key, value) VALUES ('revision', 0);
      `);
    },
  },
  {
    version: 2,
    name: 'record values written once, in the change feed',
    // No table changes: from this version a records row may hold '' as its value, meaning the
    // value of its change row at the same revision (sqlite-statements.ts RECORD_VALUE). The version
    // keeps an older fogbank, which would read '' as JSON, from opening such a database.
    up() {},
  },
];

/** SchemaTooNewError is thrown when a database was written by a newer fogbank than this one. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly file: string,
    readonly found: number,
    readonly known: number,
    /** What the user can do instead; the SQLite default names the data directory. */
    hint = 'upgrade fogbank, or point --data-dir at another directory',
  ) {
    super(`the database ${file} has schema version ${found}, but this fogbank only knows versions up to ${known}: ${hint}`);
  }
}

/** schemaVersion reads meta.schema_version; 0 means a fresh database (no meta table yet). */
export function schemaVersion(db: Database.Database): number {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").pluck().get();
  if (hasMeta === undefined) return 0;
  const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get();
  return typeof version === 'number' ? version : 0;
}

/**
 * migrate brings `db` up to the last of `migrations` in one IMMEDIATE transaction (so a crash
 * mid-way leaves the previous version intact) and returns the versions it applied.
 */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const run = db.transaction((): number[] => {
    const current = schemaVersion(db);
    if (current > known) throw new SchemaTooNewError(file, current, known);
    const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
    for (const migration of pending) {
      migration.up(db);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(migration.version);
    }
    return pending.map((m) => m.version);
  });
  return run.immediate();
}
