import { appendFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * UploadBytes keeps the bytes of resumable upload sessions where every process serving the
 * store reaches them, so an upload started through one replica can be resumed through another
 * (the session's metadata is an ordinary record; only the bytes live here). Bytes are only
 * ever appended at the end, as resumable upload protocols send them.
 */
export interface UploadBytes {
  /**
   * append adds `bytes` to upload `id` at `offset`, which must be its current size (a retried or
   * out-of-order chunk throws UploadOffsetError); returns the new size.
   */
  append(id: string, offset: number, bytes: Uint8Array): Promise<number>;
  /** size is how many bytes upload `id` holds (0 when it has none). */
  size(id: string): Promise<number>;
  /** read returns every byte of upload `id`. */
  read(id: string): Promise<Buffer>;
  /** remove forgets upload `id` (finished or abandoned). */
  remove(id: string): Promise<void>;
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

/** MemoryUploadBytes keeps upload bytes in process memory (the memory store). */
export class MemoryUploadBytes implements UploadBytes {
  readonly #chunks = new Map<string, Buffer[]>();

  async append(id: string, offset: number, bytes: Uint8Array): Promise<number> {
    // No await before the push: the check and the append happen in one turn.
    const size = this.#sizeOf(id);
    if (offset !== size) throw new UploadOffsetError(id, offset, size);
    let chunks = this.#chunks.get(id);
    if (chunks === undefined) this.#chunks.set(id, (chunks = []));
    chunks.push(Buffer.from(bytes));
    return size + bytes.byteLength;
  }

  async size(id: string): Promise<number> {
    return this.#sizeOf(id);
  }

  #sizeOf(id: string): number {
    return (this.#chunks.get(id) ?? []).reduce((total, chunk) => total + chunk.byteLength, 0);
  }

  async read(id: string): Promise<Buffer> {
    return Buffer.concat(this.#chunks.get(id) ?? []);
  }

  async remove(id: string): Promise<void> {
    this.#chunks.delete(id);
  }
}

/**
 * FileUploadBytes keeps each upload as one file under `dir` (the SQLite store's data directory:
 * one process, so a file per upload is all the sharing needed, and large bodies stay out of the
 * database). File names are the hex of the id, so any id is a safe name.
 */
export class FileUploadBytes implements UploadBytes {
  readonly #dir: string;
  // Appends to one upload are serialised, so the offset check and the write cannot interleave.
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  async append(id: string, offset: number, bytes: Uint8Array): Promise<number> {
    const previous = this.#tails.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(async () => {
      const size = await this.size(id);
      if (offset !== size) throw new UploadOffsetError(id, offset, size);
      await mkdir(this.#dir, { recursive: true });
      await appendFile(this.#file(id), bytes);
      return size + bytes.byteLength;
    });
    this.#tails.set(id, next);
    try {
      return await next;
    } finally {
      if (this.#tails.get(id) === next) this.#tails.delete(id);
    }
  }

  async size(id: string): Promise<number> {
    try {
      return (await stat(this.#file(id))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  async read(id: string): Promise<Buffer> {
    try {
      return await readFile(this.#file(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    }
  }

  async remove(id: string): Promise<void> {
    await rm(this.#file(id), { force: true });
  }

  #file(id: string): string {
    return join(this.#dir, Buffer.from(id, 'utf8').toString('hex'));
  }
}
