import { Readable } from 'node:stream';
import type pg from 'pg';
import { writeNewFile } from '../lib/new-file.ts';
import { readChunks, UNIQUE_VIOLATION, type ChunkTable } from './postgres-chunks.ts';
import { unavailableOr } from './postgres-connection.ts';
import { pieces, UploadOffsetError, type UploadBytes } from './upload-bytes.ts';

/** UPLOAD_CHUNKS is where upload bytes live. */
const UPLOAD_CHUNKS: ChunkTable = { table: 'fogbank_upload_chunks', owner: 'upload' };

/** The committed size of upload $1: the end of its last chunk row (rows are contiguous), found through the primary key. */
const SIZE_OF = 'coalesce((SELECT "offset" + octet_length(data) FROM fogbank_upload_chunks WHERE upload = $1 ORDER BY "offset" DESC LIMIT 1), 0)';

/**
 * PostgresUploadBytes keeps upload bytes in fogbank_upload_chunks, one bytea row of at most
 * UPLOAD_PIECE bytes per committed piece, so every replica reads and extends the same upload
 * with bounded memory. Each row's offset check and insert are one statement; two replicas
 * appending at the same offset at once collide on the primary key, and the loser gets
 * UploadOffsetError like any stale chunk.
 */
export class PostgresUploadBytes implements UploadBytes {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async append(id: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<number> {
    const size = await this.size(id);
    if (size !== offset) throw new UploadOffsetError(id, offset, size);
    let end = offset;
    for await (const piece of pieces(source)) {
      await this.#insert(id, end, piece);
      end += piece.length;
    }
    return end;
  }

  async #insert(id: string, offset: number, piece: Buffer): Promise<void> {
    try {
      const result = await this.#pool.query({
        name: 'fogbank_upload_append_piece',
        text: `INSERT INTO fogbank_upload_chunks (upload, "offset", data) SELECT $1, $2, $3 WHERE ${SIZE_OF} = $2`,
        values: [id, offset, piece],
      });
      if (result.rowCount === 1) return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw unavailableOr(error);
    }
    throw new UploadOffsetError(id, offset, await this.size(id));
  }

  async size(id: string): Promise<number> {
    try {
      const result = await this.#pool.query<{ size: number }>({ name: 'fogbank_upload_size_of', text: `SELECT ${SIZE_OF}::int8 AS size`, values: [id] });
      return result.rows[0]?.size ?? 0;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  read(id: string): Readable {
    return Readable.from(readChunks(this.#pool, UPLOAD_CHUNKS, id, 0), { objectMode: false });
  }

  async copyTo(id: string, path: string): Promise<void> {
    await writeNewFile(this.read(id), path);
  }

  async remove(id: string): Promise<void> {
    try {
      await this.#pool.query({ name: 'fogbank_upload_remove', text: 'DELETE FROM fogbank_upload_chunks WHERE upload = $1', values: [id] });
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>): Promise<number> {
    let ids: string[];
    try {
      const result = await this.#pool.query<{ upload: string }>({
        name: 'fogbank_upload_list',
        text: 'SELECT DISTINCT upload FROM fogbank_upload_chunks WHERE left(upload, char_length($1)) = $1',
        values: [prefix],
      });
      ids = result.rows.map((row) => row.upload);
    } catch (error) {
      throw unavailableOr(error);
    }
    const keep = await live(ids);
    const orphans = ids.filter((id) => !keep.has(id));
    for (const id of orphans) await this.remove(id);
    return orphans.length;
  }
}
