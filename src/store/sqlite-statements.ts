import type Database from 'better-sqlite3';
import type { ChangeRow, RecordRow } from './sql-rows.ts';

// A record's value is written once, into its change row (the feed needs it anyway); the record
// row holds '' (never valid JSON) meaning "the value of the change at my revision", until the feed
// is compacted past that change (see `compact`), which copies the value into the record first.
/** RECORD_VALUE resolves a records row's value, for the reads (FROM records). */
export const RECORD_VALUE =
  "CASE WHEN records.value = '' THEN (SELECT changes.value FROM changes WHERE changes.revision = records.revision) ELSE records.value END";
/** RECORD_COLUMNS are a records row's columns as RecordRow, its value resolved. */
export const RECORD_COLUMNS = `kind, key, ${RECORD_VALUE} AS value, create_revision, revision`;
// Keys between `prefix` and `prefix || x'ff'` are exactly the keys starting with `prefix`:
// 0xFF never occurs in UTF-8, and the range keeps the (kind, key) index usable, unlike LIKE or substr.
const PREFIX_RANGE = "key >= @prefix AND key < (@prefix || x'ff')";

/**
 * ReadStatements are the prepared reads, compiled once per connection: preparing per call would
 * dominate the cost of a point read.
 */
export class ReadStatements {
  readonly revisionOf: Database.Statement<[string, string], number>;
  readonly record: Database.Statement<[string, string], RecordRow>;
  /** list variants indexed by (prefix ? 1 : 0) + (after ? 2 : 0); `@limit` -1 means no limit. */
  readonly list: readonly Database.Statement<ListParams, RecordRow>[];
  readonly count: Database.Statement<[string], number>;
  readonly countPrefix: Database.Statement<[{ kind: string; prefix: string }], number>;
  readonly changes: Database.Statement<[number, number], ChangeRow>;
  /** changesOfKinds takes the kinds as a JSON array, so one statement serves any number of them. */
  readonly changesOfKinds: Database.Statement<[number, string, number], ChangeRow>;

  constructor(db: Database.Database) {
    this.revisionOf = db.prepare<[string, string], number>('SELECT revision FROM records WHERE kind = ? AND key = ?').pluck();
    this.record = db.prepare<[string, string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = ? AND key = ?`);
    const where = ['', ` AND ${PREFIX_RANGE}`, ' AND key > @after', ` AND ${PREFIX_RANGE} AND key > @after`];
    this.list = where.map((extra) =>
      db.prepare<ListParams, RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = @kind${extra} ORDER BY key LIMIT @limit`),
    );
    this.count = db.prepare<[string], number>('SELECT count(*) FROM records WHERE kind = ?').pluck();
    this.countPrefix = db.prepare<[{ kind: string; prefix: string }], number>(`SELECT count(*) FROM records WHERE kind = @kind AND ${PREFIX_RANGE}`).pluck();
    const changeColumns = 'revision, type, kind, key, value, create_revision';
    this.changes = db.prepare<[number, number], ChangeRow>(`SELECT ${changeColumns} FROM changes WHERE revision > ? ORDER BY revision LIMIT ?`);
    this.changesOfKinds = db.prepare<[number, string, number], ChangeRow>(
      `SELECT ${changeColumns} FROM changes WHERE revision > ? AND kind IN (SELECT value FROM json_each(?)) ORDER BY revision LIMIT ?`,
    );
  }
}

/** ListParams are the named parameters of the list variants; unused ones are omitted. */
export type ListParams = [{ kind: string; limit: number; prefix?: string; after?: string }];

/** WriteStatements are the prepared statements only the writer connection runs. */
export class WriteStatements extends ReadStatements {
  readonly begin: Database.Statement<[]>;
  readonly commit: Database.Statement<[]>;
  readonly rollback: Database.Statement<[]>;
  readonly savepoint: Database.Statement<[]>;
  readonly release: Database.Statement<[]>;
  readonly rollbackToSavepoint: Database.Statement<[]>;
  /** upsert returns the row's create_revision: equal to the new revision exactly when it created the row. Its value is its change row's. */
  readonly upsert: Database.Statement<[string, string, number, number], number>;
  /** insertNew creates a row only where none is: a run that changed nothing met an existing row. Its value is its change row's. */
  readonly insertNew: Database.Statement<[string, string, number, number]>;
  readonly remove: Database.Statement<[string, string]>;
  readonly appendChange: Database.Statement<[number, string, string, string, string, number]>;
  readonly setRevision: Database.Statement<[number]>;
  readonly readRevision: Database.Statement<[], number>;
  /** keepValues copies into the records the values their change rows up to a revision hold, before `compact` drops those rows. */
  readonly keepValues: Database.Statement<[number]>;
  readonly compact: Database.Statement<[number]>;
  readonly oldestChange: Database.Statement<[], number | null>;
  readonly newestChange: Database.Statement<[], number | null>;

  constructor(db: Database.Database) {
    super(db);
    // IMMEDIATE takes the write lock at BEGIN, so a transaction never fails half-way with BUSY.
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    // Each transact function of a group commit runs inside its own savepoint, so one that
    // throws is undone alone while its neighbours commit.
    this.savepoint = db.prepare('SAVEPOINT fogbank_transact');
    this.release = db.prepare('RELEASE fogbank_transact');
    this.rollbackToSavepoint = db.prepare('ROLLBACK TO fogbank_transact');
    this.upsert = db
      .prepare<[string, string, number, number], number>(
        "INSERT INTO records (kind, key, value, create_revision, revision) VALUES (?, ?, '', ?, ?) " +
          "ON CONFLICT (kind, key) DO UPDATE SET value = '', revision = excluded.revision " +
          'RETURNING create_revision',
      )
      .pluck();
    this.insertNew = db.prepare("INSERT INTO records (kind, key, value, create_revision, revision) VALUES (?, ?, '', ?, ?) ON CONFLICT (kind, key) DO NOTHING");
    this.remove = db.prepare('DELETE FROM records WHERE kind = ? AND key = ?');
    this.appendChange = db.prepare('INSERT INTO changes (revision, type, kind, key, value, create_revision) VALUES (?, ?, ?, ?, ?, ?)');
    this.setRevision = db.prepare("UPDATE meta SET value = ? WHERE key = 'revision'");
    this.readRevision = db.prepare<[], number>("SELECT value FROM meta WHERE key = 'revision'").pluck();
    // Driven by the change rows about to go (a compaction batch), each finding its record by primary key.
    this.keepValues = db.prepare(
      "UPDATE records SET value = changes.value FROM changes WHERE changes.revision <= ? AND changes.type <> 'deleted' " +
        "AND records.kind = changes.kind AND records.key = changes.key AND records.revision = changes.revision AND records.value = ''",
    );
    this.compact = db.prepare('DELETE FROM changes WHERE revision <= ?');
    this.oldestChange = db.prepare<[], number | null>('SELECT min(revision) FROM changes').pluck();
    this.newestChange = db.prepare<[], number | null>('SELECT max(revision) FROM changes').pluck();
  }
}
