import { Readable } from 'node:stream';
import type pg from 'pg';
import { checkFileId, localSource, FileExistsError, FileMissingError, SHARED_SWEEP_GRACE_MS, type FileBytes } from './file-bytes.ts';
import { readChunks, UNIQUE_VIOLATION, type ChunkTable } from './postgres-chunks.ts';
import { unavailableOr } from './postgres-connection.ts';
import { pieces } from './upload-bytes.ts';

/** FILE_CHUNKS is where file bytes live. */
const FILE_CHUNKS: ChunkTable = { table: 'fogbank_file_chunks', owner: 'file' };

/**
 * PostgresFileBytes keeps files in the database every replica shares: one fogbank_files row per
 * file (its size, NULL until the last byte is in) and its bytes in fogbank_file_chunks, one
 * bytea row per piece of at most UPLOAD_PIECE bytes, each committed on its own so neither side
 * holds more than a few pieces in memory and no connection is held for a whole write. Readers
 * only see finished files; a write that fails removes its rows, and one cut short by a crash
 * is unfinished for good, so the next sweep after its grace removes it.
 */
export class PostgresFileBytes implements FileBytes {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async write(id: string, source: AsyncIterable<Uint8Array>): Promise<number> {
    checkFileId(id);
    try {
      await this.#query('file_begin', 'INSERT INTO fogbank_files (id) VALUES ($1)', [id]);
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new FileExistsError(id);
      throw error;
    }
    let size = 0;
    try {
      for await (const piece of pieces(source)) {
        await this.#query('file_append', 'INSERT INTO fogbank_file_chunks (file, "offset", data) VALUES ($1, $2, $3)', [id, size, piece]);
        size += piece.length;
      }
      const finished = await this.#query('file_finish', 'UPDATE fogbank_files SET size = $2, written_at = now() WHERE id = $1 AND size IS NULL', [id, size]);
      if (finished.rowCount !== 1) throw new Error(`file ${id} was removed while being written`);
    } catch (error) {
      await this.remove(id).catch(() => undefined);
      throw error;
    }
    return size;
  }

  async adopt(id: string, path: string): Promise<number> {
    return this.write(id, localSource(path));
  }

  async copy(from: string, to: string): Promise<number> {
    checkFileId(from);
    checkFileId(to);
    let result: pg.QueryResult<{ size: number }>;
    try {
      // One statement, so all or nothing; the bytes never leave the database.
      result = await this.#query<{ size: number }>(
        'file_copy',
        `WITH copied AS (
           INSERT INTO fogbank_files (id, size) SELECT $2, size FROM fogbank_files WHERE id = $1 AND size IS NOT NULL RETURNING size
         ), chunks AS (
           INSERT INTO fogbank_file_chunks (file, "offset", data) SELECT $2, "offset", data FROM fogbank_file_chunks WHERE file = $1 AND EXISTS (SELECT 1 FROM copied)
         )
         SELECT size FROM copied`,
        [from, to],
      );
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new FileExistsError(to);
      throw error;
    }
    const size = result.rows[0]?.size;
    if (size === undefined) throw new FileMissingError(from);
    return size;
  }

  read(id: string, start = 0): Readable {
    const files = this;
    return Readable.from(
      (async function* () {
        const size = await files.size(id);
        if (size === undefined) throw new FileMissingError(id);
        yield* readChunks(files.#pool, FILE_CHUNKS, id, start, size);
      })(),
      { objectMode: false },
    );
  }

  async size(id: string): Promise<number | undefined> {
    checkFileId(id);
    const result = await this.#query<{ size: number }>('file_size', 'SELECT size FROM fogbank_files WHERE id = $1 AND size IS NOT NULL', [id]);
    return result.rows[0]?.size;
  }

  async remove(id: string): Promise<void> {
    checkFileId(id);
    await this.#query('file_remove', 'DELETE FROM fogbank_files WHERE id = $1', [id]);
  }

  async sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>, graceMs = SHARED_SWEEP_GRACE_MS): Promise<number> {
    checkFileId(prefix, true);
    const result = await this.#query<{ id: string }>(
      'file_list',
      `SELECT id FROM fogbank_files WHERE left(id, char_length($1)) = $1 AND written_at <= now() - $2 * interval '1 millisecond'`,
      [prefix, graceMs],
    );
    const ids = result.rows.map((row) => row.id);
    const keep = await live(ids);
    const orphans = ids.filter((id) => !keep.has(id));
    for (const id of orphans) await this.remove(id);
    return orphans.length;
  }

  async #query<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>({ name: `fogbank_${name}`, text, values });
    } catch (error) {
      throw unavailableOr(error);
    }
  }
}
