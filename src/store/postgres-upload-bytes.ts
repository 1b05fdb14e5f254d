import type pg from 'pg';
import { unavailableOr } from './postgres-connection.ts';
import { UploadOffsetError, type UploadBytes } from './upload-bytes.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * PostgresUploadBytes keeps upload bytes in fogbank_upload_chunks, one bytea row per appended
 * chunk, so every replica reads and extends the same upload. The offset check and the insert
 * are one statement; two replicas appending at the same offset at once collide on the primary
 * key, and the loser gets UploadOffsetError like any stale chunk.
 */
export class PostgresUploadBytes implements UploadBytes {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async append(id: string, offset: number, bytes: Uint8Array): Promise<number> {
    try {
      const result = await this.#pool.query({
        name: 'fogbank_upload_append',
        text:
          'INSERT INTO fogbank_upload_chunks (upload, "offset", data) SELECT $1, $2, $3 ' +
          'WHERE (SELECT coalesce(max("offset" + octet_length(data)), 0) FROM fogbank_upload_chunks WHERE upload = $1) = $2',
        values: [id, offset, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      });
      if (result.rowCount === 1) return offset + bytes.byteLength;
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw unavailableOr(error);
    }
    throw new UploadOffsetError(id, offset, await this.size(id));
  }

  async size(id: string): Promise<number> {
    try {
      const result = await this.#pool.query<{ size: number }>({
        name: 'fogbank_upload_size',
        text: 'SELECT coalesce(max("offset" + octet_length(data)), 0)::int8 AS size FROM fogbank_upload_chunks WHERE upload = $1',
        values: [id],
      });
      return result.rows[0]?.size ?? 0;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async read(id: string): Promise<Buffer> {
    try {
      const result = await this.#pool.query<{ data: Buffer }>({
        name: 'fogbank_upload_read',
        text: 'SELECT data FROM fogbank_upload_chunks WHERE upload = $1 ORDER BY "offset"',
        values: [id],
      });
      return Buffer.concat(result.rows.map((row) => row.data));
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.#pool.query({ name: 'fogbank_upload_remove', text: 'DELETE FROM fogbank_upload_chunks WHERE upload = $1', values: [id] });
    } catch (error) {
      throw unavailableOr(error);
    }
  }
}
