import { type FileHandle, link, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeNewFile } from '../lib/new-file.ts';
import { LazyTempDir } from './lazy-temp-dir.ts';
import { Readable } from 'node:stream';

/** UPLOAD_PIECE is the most bytes an append commits in one step (and a PostgreSQL chunk row holds): 1 MiB. */
export const UPLOAD_PIECE = 1024 * 1024;

/**
 * UploadBytes keeps the bytes of resumable upload sessions where every process serving the
 * store reaches them, so an upload started through one replica can be resumed through another
 * (the session's metadata is an ordinary record; only the bytes live here). Bytes are only ever
 * appended at the end, as resumable upload protocols send them, and always streamed: no method
 * holds more than a piece (UPLOAD_PIECE) of one upload in memory.
 */
export interface UploadBytes {
  /**
   * append streams `source` onto upload `id` at `offset`, which must be its committed size (a
   * stale or out-of-order chunk throws UploadOffsetError before a byte is taken, as does a chunk
   * that loses a race with another process appending to the same upload). Bytes are committed
   * in order, in pieces of at most UPLOAD_PIECE, each all or nothing. When `source` fails (the
   * client went away, a limit was hit) everything it delivered before failing is committed —
   * what Google's protocol reports as received in the next 308 `Range` — and its error is
   * rethrown. A failure of the backend itself leaves the upload at its last committed piece.
   * Returns the new committed size.
   */
  append(id: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<number>;
  /** size is how many bytes upload `id` has committed (0 when it has none). */
  size(id: string): Promise<number>;
  /** read streams every committed byte of upload `id`, in order (an empty stream when it has none). */
  read(id: string): Readable;
  /**
   * copyTo puts every committed byte of upload `id` in a new local file at `path` (which must
   * not exist), for a reader that needs random access: a backend keeping uploads as local files
   * hard-links the file when it can (no copy; the link outlives remove), the others stream.
   */
  copyTo(id: string, path: string): Promise<void>;
  /** remove forgets upload `id` (finished or abandoned). */
  remove(id: string): Promise<void>;
  /**
   * sweep removes the uploads under `prefix` that `live` does not keep: it first lists the
   * uploads holding bytes, then asks `live` which of them still belong to a session. Sessions
   * are recorded before their first byte, so one started during the sweep is never taken for an
   * orphan. Returns how many were removed.
   */
  sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>): Promise<number>;
}

/** UploadOffsetError is thrown when a chunk does not start where the upload ends. */
export class UploadOffsetError extends Error {
  override readonly name = 'UploadOffsetError';
  constructor(
    readonly id: string,
    readonly offset: number,
    readonly size: number,
  ) {
    super(`upload ${id} holds ${size} bytes; a chunk at offset ${offset} does not continue it`);
  }
}

/**
 * pieces re-cuts `source` into pieces of `size` bytes (the last one shorter). When `source`
 * fails, the bytes it delivered so far come out as a last piece before the error, so a backend
 * commits every received byte.
 */
export async function* pieces(source: AsyncIterable<Uint8Array>, size = UPLOAD_PIECE): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let length = 0;
  const take = (): Buffer => {
    const joined = held.length === 1 ? held[0]! : Buffer.concat(held, length);
    held = [];
    length = 0;
    return joined;
  };
  try {
    for await (const chunk of source) {
      let rest = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      while (length + rest.length >= size) {
        held.push(rest.subarray(0, size - length));
        length = size;
        rest = rest.subarray(held[held.length - 1]!.length);
        yield take();
      }
      if (rest.length > 0) {
        held.push(rest);
        length += rest.length;
      }
    }
  } catch (error) {
    if (length > 0) yield take();
    throw error;
  }
  if (length > 0) yield take();
}

/**
 * FileUploadBytes keeps each upload as one file under `dir` (the SQLite store's data directory:
 * one process, so a file per upload is all the sharing needed, and large bodies stay out of the
 * database). File names are the hex of the id, so any id is a safe name. Durability is the
 * SQLite store's: every piece is handed to the OS (write()) before the append returns, so the
 * size it reports survives `kill -9` of the process; only an OS crash can lose the last pieces,
 * and then the file is shorter, never torn in the middle of what it reports.
 */
export class FileUploadBytes implements UploadBytes {
  // Appends to one upload are serialised, so the offset check and the writes cannot interleave.
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(private readonly dir: string) {}

  /** directory is the folder holding the upload files (public, as FileBytes' is, so tests can look there). */
  directory(): string {
    return this.dir;
  }

  async append(id: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<number> {
    const previous = this.#tails.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#append(id, offset, source));
    this.#tails.set(id, next);
    try {
      return await next;
    } finally {
      if (this.#tails.get(id) === next) this.#tails.delete(id);
    }
  }

  async #append(id: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<number> {
    const size = await this.size(id);
    if (offset !== size) throw new UploadOffsetError(id, offset, size);
    await mkdir(this.directory(), { recursive: true, mode: 0o700 });
    const handle = await open(this.#file(id), 'a', 0o600);
    let written = size;
    // The chunks as they came, written together once they make a piece (one writev, no copy
    // into a piece-sized buffer: a 1 GiB upload was 1 GiB of memcpy and garbage before).
    let held: Buffer[] = [];
    let length = 0;
    const flush = async (): Promise<void> => {
      if (length === 0) return;
      await writevAll(handle, held);
      written += length;
      held = [];
      length = 0;
    };
    try {
      try {
        for await (const chunk of source) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          if (length + bytes.length > UPLOAD_PIECE || held.length === MAX_HELD_CHUNKS) await flush();
          held.push(bytes);
          length += bytes.length;
        }
      } catch (error) {
        // Everything delivered before the source failed is committed.
        await flush();
        throw error;
      }
      await flush();
    } finally {
      await handle.close();
    }
    return written;
  }

  async size(id: string): Promise<number> {
    try {
      return (await stat(this.#file(id))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  read(id: string): Readable {
    return readLocalFile(this.#file(id), 0, undefined);
  }

  async copyTo(id: string, path: string): Promise<void> {
    try {
      // Upload files are only ever appended to, and a finished upload is never appended to again.
      await link(this.#file(id), path);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EXDEV' && code !== 'ENOENT' && code !== 'EPERM') throw error;
    }
    await writeNewFile(this.read(id), path);
  }

  async remove(id: string): Promise<void> {
    await rm(this.#file(id), { force: true });
  }

  async sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.directory());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    const ids = names
      .filter((name) => /^(?:[0-9a-f]{2})+$/.test(name))
      .map((name) => Buffer.from(name, 'hex').toString('utf8'))
      .filter((id) => id.startsWith(prefix));
    const keep = await live(ids);
    const orphans = ids.filter((id) => !keep.has(id));
    for (const id of orphans) await this.remove(id);
    return orphans.length;
  }

  #file(id: string): string {
    return join(this.directory(), Buffer.from(id, 'utf8').toString('hex'));
  }
}

/**
 * readLocalFile streams the file at `path` from byte `start`, in pieces of UPLOAD_PIECE. A file
 * that does not exist is an empty stream, or the error `missing` makes when it is given.
 */
export function readLocalFile(path: string, start: number, missing: (() => Error) | undefined): Readable {
  return Readable.from(
    (async function* () {
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        if (missing === undefined) return;
        throw missing();
      }
      try {
        for (let position = start; ; ) {
          const buffer = Buffer.allocUnsafe(UPLOAD_PIECE);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) return;
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } finally {
        await handle.close();
      }
    })(),
    { objectMode: false },
  );
}

/** MAX_HELD_CHUNKS bounds the buffers of one writev (IOV_MAX is 1024; a client sending tiny chunks makes many). */
const MAX_HELD_CHUNKS = 256;

/** writevAll writes every byte of `buffers` at the file's end, going on after a short write. */
async function writevAll(handle: import('node:fs/promises').FileHandle, buffers: readonly Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest as Buffer[]);
    let first = 0;
    while (first < rest.length && bytesWritten >= rest[first]!.length) bytesWritten -= rest[first++]!.length;
    rest = first < rest.length ? [rest[first]!.subarray(bytesWritten), ...rest.slice(first + 1)] : [];
  }
}

/**
 * MemoryUploadBytes is the memory store's: uploads live in files of a temporary directory made
 * on the first append and removed when the store closes, so an upload of gigabytes never sits
 * in process memory even when nothing else is kept on disk.
 */
export class MemoryUploadBytes extends FileUploadBytes {
  readonly #dir = new LazyTempDir('fogbank-uploads-');

  constructor() {
    super('');
  }

  /** directory is the temporary directory (made now when it does not exist yet). */
  override directory(): string {
    return this.#dir.path();
  }

  /** close removes the temporary directory and every upload in it. */
  close(): void {
    this.#dir.remove();
  }
}
