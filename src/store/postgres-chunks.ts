import type pg from 'pg';
import { unavailableOr } from './postgres-connection.ts';

/** UNIQUE_VIOLATION is PostgreSQL's SQLSTATE for a duplicate key. */
export const UNIQUE_VIOLATION = '23505';

/** READ_ROWS is how many chunk rows a read fetches per query (each arrives as hex text, twice its size): a few MiB in memory at most. */
const READ_ROWS = 2;

/** ChunkTable names a table of byte chunks: `owner` (text) and `"offset"` (bigint) are its primary key, `data` (bytea) one piece. */
export interface ChunkTable {
  readonly table: string;
  readonly owner: string;
}

/**
 * readChunks yields the bytes of `id`'s chunk rows in `table` from byte `start`, a few rows per
 * query, checking that the rows are contiguous. With `end`, the rows must reach it (a shorter
 * run means the bytes went away while being read); without, it reads until the rows run out.
 */
export async function* readChunks(pool: pg.Pool, { table, owner }: ChunkTable, id: string, start: number, end?: number): AsyncGenerator<Buffer> {
  const query = async <R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> => {
    try {
      return (await pool.query<R>({ name: `${table}_${name}`, text, values })).rows;
    } catch (error) {
      throw unavailableOr(error);
    }
  };
  // The row holding byte `start`: rows are contiguous, so it is the last one starting at or before it.
  let from =
    start === 0
      ? 0
      : Number(
          (await query<{ at: string | null }>('read_from', `SELECT max("offset") AS at FROM ${table} WHERE ${owner} = $1 AND "offset" <= $2`, [id, start]))[0]
            ?.at ?? 0,
        );
  for (;;) {
    const rows = await query<{ offset: number; data: Buffer }>(
      'read_rows',
      `SELECT "offset", data FROM ${table} WHERE ${owner} = $1 AND "offset" >= $2 ORDER BY "offset" LIMIT ${READ_ROWS}`,
      [id, from],
    );
    for (const row of rows) {
      if (Number(row.offset) !== from) throw new Error(`${id} has a gap at byte ${from}`);
      from += row.data.length;
      if (from > start) yield from - row.data.length >= start ? row.data : row.data.subarray(start - (from - row.data.length));
    }
    if (rows.length < READ_ROWS) break;
  }
  if (end !== undefined && from < end) throw new Error(`${id} ends at byte ${from} of ${end}: it was removed while being read`);
}
