import { createReadStream, type Dirent } from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { writeNewFile } from '../lib/new-file.ts';
import { LazyTempDir } from './lazy-temp-dir.ts';
import { readLocalFile } from './upload-bytes.ts';

/**
 * FileBytes keeps immutable byte files (a large raw mail message, an uploaded bundle) where
 * every process serving the store reaches them, so a file written through one replica is read
 * through any other. A file is written once, whole, then only read, copied or removed; its
 * description lives in an ordinary record that names it by id. No method holds a whole file in
 * memory.
 *
 * Ids are relative paths: segments of letters, digits, `.`, `_` and `-` joined by `/` (no empty,
 * `.` or `..` segment), namespaced by their owner (`mail/raw/…`). A backend keeping files
 * locally stores file `a/b` at `<root>/a/b`.
 *
 * Records and bytes are written in two steps, bytes first: the owner writes the file, then
 * commits the record naming it, and removes the file when that commit fails. A crash between
 * the two leaves a file no record names, which `sweep` removes; a record never names bytes that
 * are not all there.
 */
export interface FileBytes {
  /**
   * write streams `source` into new file `id` and returns its size. All or nothing: when the
   * source or the backend fails, no part of `id` stays readable and the error is rethrown.
   * Throws FileExistsError, before taking a byte, when `id` exists.
   */
  write(id: string, source: AsyncIterable<Uint8Array>): Promise<number>;
  /**
   * adopt makes the local file at `path` new file `id` and returns its size. `move` hands the
   * file over: a backend keeping files locally renames it (no copy), so `path` may be gone
   * afterwards (a caller still removes it if it is not); `link` leaves `path` as it was (a hard
   * link where it can). A backend keeping files elsewhere streams it.
   */
  adopt(id: string, path: string, how: 'move' | 'link'): Promise<number>;
  /** copy makes new file `to` with the bytes of file `from` (a hard link, or a copy inside the database). Returns its size. */
  copy(from: string, to: string): Promise<number>;
  /** read streams file `id` from byte `start` (0 by default) to its end; the stream fails with FileMissingError when there is no such file. */
  read(id: string, start?: number): Readable;
  /** size is file `id`'s size, or undefined when there is no such file. */
  size(id: string): Promise<number | undefined>;
  /** remove removes file `id` (nothing happens when there is none). */
  remove(id: string): Promise<void>;
  /**
   * sweep removes the files under folder `prefix` (ending in `/`) that `live` does not keep:
   * it lists them, then asks `live` which of them a record still names. A file written within
   * the last `graceMs` is kept, since its writer may be about to record it; the default is 0
   * for a backend only one process opens (its owners sweep before serving) and
   * SHARED_SWEEP_GRACE_MS for a shared one. Returns how many were removed.
   */
  sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>, graceMs?: number): Promise<number>;
}

/** SHARED_SWEEP_GRACE_MS is how long a file on a shared store is safe from sweeps of other replicas before its record commits: 1 hour. */
export const SHARED_SWEEP_GRACE_MS = 60 * 60 * 1000;

/** FileExistsError is thrown when a new file's id is taken. */
export class FileExistsError extends Error {
  override readonly name = 'FileExistsError';
  readonly code = 'EEXIST';
  constructor(readonly id: string) {
    super(`file ${id} already exists`);
  }
}

/** FileMissingError is what reading a file that does not exist fails with. */
export class FileMissingError extends Error {
  override readonly name = 'FileMissingError';
  constructor(readonly id: string) {
    super(`file ${id} does not exist`);
  }
}

/** localSource streams the local file at `path`, opening it only once the first byte is asked for. */
export async function* localSource(path: string): AsyncGenerator<Uint8Array> {
  yield* createReadStream(path) as AsyncIterable<Buffer>;
}

const SEGMENT = /^(?!\.\.?$)[A-Za-z0-9._-]+$/;

/** checkFileId throws unless `id` is a valid file id (see FileBytes); with `folder`, a folder prefix ending in `/`. */
export function checkFileId(id: string, folder = false): void {
  const segments = (folder ? id.replace(/\/$/, '') : id).split('/');
  if ((folder && !id.endsWith('/')) || !segments.every((segment) => SEGMENT.test(segment))) {
    throw new Error(`invalid ${folder ? 'file folder' : 'file id'} ${JSON.stringify(id)}`);
  }
}

/**
 * LocalFileBytes keeps each file at `<root>/<id>` (the SQLite store's data directory: one
 * process opens it, so local files are all the sharing needed). Writes go straight to the final
 * name: nothing names a file before its write returned, and a write cut short by a crash is an
 * orphan the next sweep removes. Adopting a local file renames or hard-links it: no copy.
 */
export class LocalFileBytes implements FileBytes {
  readonly #root: () => string;

  constructor(root: string | (() => string)) {
    this.#root = typeof root === 'string' ? () => root : root;
  }

  async write(id: string, source: AsyncIterable<Uint8Array>): Promise<number> {
    const path = await this.#prepare(id);
    try {
      await writeNewFile(Readable.from(source, { objectMode: false }), path);
    } catch (error) {
      throw (error as NodeJS.ErrnoException).code === 'EEXIST' ? new FileExistsError(id) : error;
    }
    return (await stat(path)).size;
  }

  async adopt(id: string, path: string, how: 'move' | 'link'): Promise<number> {
    const target = await this.#prepare(id);
    if ((await this.size(id)) !== undefined) throw new FileExistsError(id);
    try {
      // rename replaces an existing target; the check above is enough for one process.
      await (how === 'move' ? rename(path, target) : link(path, target));
      return (await stat(target)).size;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new FileExistsError(id);
      if (code !== 'EXDEV' && code !== 'EPERM') throw error;
    }
    return this.write(id, localSource(path));
  }

  async copy(from: string, to: string): Promise<number> {
    try {
      return await this.adopt(to, this.#path(from), 'link');
    } catch (error) {
      throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? new FileMissingError(from) : error;
    }
  }

  read(id: string, start = 0): Readable {
    return readLocalFile(this.#path(id), start, () => new FileMissingError(id));
  }

  async size(id: string): Promise<number | undefined> {
    try {
      return (await stat(this.#path(id))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }

  async sweep(prefix: string, live: (ids: readonly string[]) => Promise<ReadonlySet<string>>, graceMs = 0): Promise<number> {
    checkFileId(prefix, true);
    const found: { id: string; changed: number }[] = [];
    await this.#walk(prefix, found);
    const now = Date.now();
    const ids = found.filter((file) => now - file.changed >= graceMs).map((file) => file.id);
    const keep = await live(ids);
    const orphans = ids.filter((id) => !keep.has(id));
    for (const id of orphans) await this.remove(id);
    return orphans.length;
  }

  async #walk(folder: string, found: { id: string; changed: number }[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(join(this.#root(), folder), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (!SEGMENT.test(entry.name)) continue;
      const id = `${folder}${entry.name}`;
      if (entry.isDirectory()) await this.#walk(`${id}/`, found);
      // ctime moves on every write, rename and link: when the file last became what it is.
      else if (entry.isFile()) found.push({ id, changed: (await stat(this.#path(id))).ctimeMs });
    }
  }

  async #prepare(id: string): Promise<string> {
    const path = this.#path(id);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    return path;
  }

  #path(id: string): string {
    checkFileId(id);
    return join(this.#root(), id);
  }
}

/**
 * MemoryFileBytes is the memory store's: files live in a temporary directory made on the first
 * write and removed when the store closes, so a large file never sits in process memory.
 */
export class MemoryFileBytes extends LocalFileBytes {
  readonly #dir: LazyTempDir;

  constructor(dir = new LazyTempDir('fogbank-files-')) {
    super(() => dir.path());
    this.#dir = dir;
  }

  /** directory is the temporary directory (made now when it does not exist yet). */
  directory(): string {
    return this.#dir.path();
  }

  /** close removes the temporary directory and every file in it. */
  close(): void {
    this.#dir.remove();
  }
}
