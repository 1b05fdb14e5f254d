import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { FOGBANK_VERSION } from '../lib/version.ts';
import { checkFileId, localSource } from './file-bytes.ts';
import { Mutex } from './mutex.ts';
import {
  checkBytesFrame,
  checkHeader,
  checkRecord,
  exactly,
  FrameReader,
  frameLine,
  recordFrame,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  SnapshotError,
  type SnapshotHeader,
} from './snapshot-format.ts';
import type { Store, StoredRecord } from './store.ts';

/** SnapshotsOptions say where a store's files live. */
export interface SnapshotsOptions {
  /** The folders (ending in `/`) of the store's `files` a snapshot holds: every family's (`mail/`, `publisher/`). */
  readonly fileFolders: readonly string[];
  /**
   * afterReplace runs after a restore or reset replaced the state, before they resolve: the
   * server's families seed again what a fresh instance has (FogbankServer.stateReplaced).
   */
  readonly afterReplace?: () => Promise<void>;
}

/** SnapshotSummary says what a snapshot held. */
export interface SnapshotSummary {
  /** The store's revision when the snapshot was taken. */
  readonly revision: number;
  readonly records: number;
  readonly files: number;
  readonly uploads: number;
}

/** RestoreSummary is a SnapshotSummary plus the store's revision after the restore (above its own and the snapshot's). */
export interface RestoreSummary extends SnapshotSummary {
  readonly restoredAt: number;
}

// Record lines are gathered into pieces of about this size before they reach gzip.
const BATCH_BYTES = 64 * 1024;

/**
 * Snapshots saves a store's whole state (every record, the store's files, the bytes of resumable
 * uploads) to one stream in the snapshot format (snapshot-format.ts), restores such a stream
 * into a store of any backend, and resets a store to empty. It works over the Store interface
 * (`exportState`, `replaceState`, `files`, `uploads`), so one implementation serves every backend.
 */
export class Snapshots {
  // Restores and resets take turns: each reads what the store holds, then changes it.
  readonly #turns = new Mutex();

  constructor(
    readonly store: Store,
    readonly options: SnapshotsOptions,
  ) {
    for (const folder of options.fileFolders) checkFileId(folder, true);
  }

  /**
   * save writes a snapshot to `destination` (and ends it). Writes wait meanwhile (the state is
   * read at one revision), so a slow destination holds them up: write to a file or memory, not
   * to a client that may stall. Files and upload bytes are streamed, never held whole.
   */
  async save(destination: NodeJS.WritableStream): Promise<SnapshotSummary> {
    const { store } = this;
    const folders = this.options.fileFolders;
    return store.exportState(async (revision, records) => {
      const counts = { records: 0, files: 0, uploads: 0 };
      async function* frames(): AsyncGenerator<Buffer> {
        yield frameLine({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_FORMAT_VERSION, fogbank: FOGBANK_VERSION, revision });
        let batch: Buffer[] = [];
        let batched = 0;
        for await (const record of records()) {
          const line = frameLine(recordFrame(record));
          batch.push(line);
          batched += line.length;
          counts.records += 1;
          if (batched >= BATCH_BYTES) {
            yield Buffer.concat(batch, batched);
            batch = [];
            batched = 0;
          }
        }
        if (batched > 0) yield Buffer.concat(batch, batched);
        for (const id of await listFiles(store, folders)) {
          const size = await store.files.size(id);
          if (size === undefined) continue;
          yield frameLine({ type: 'file', id, size });
          yield* exactly(store.files.read(id), size, `file ${id}`);
          counts.files += 1;
        }
        for (const id of await listUploads(store)) {
          const size = await store.uploads.size(id);
          yield frameLine({ type: 'upload', id, size });
          yield* exactly(store.uploads.read(id), size, `upload ${id}`);
          counts.uploads += 1;
        }
        yield frameLine({ type: 'end', ...counts });
      }
      // The fastest level: writes wait while a snapshot is taken, and a local test's snapshot is
      // read back soon, so time matters more than bytes (on 6 MB of record lines level 1 took half
      // the default level's time, for 8% more bytes).
      await pipeline(Readable.from(frames()), createGzip({ level: 1 }), destination);
      return { revision, ...counts };
    });
  }

  /** bytes takes a snapshot into memory (for `fb.snapshot()`; save streams one anywhere else). */
  async bytes(): Promise<Buffer> {
    const parts: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk);
        done();
      },
    });
    await this.save(sink);
    return Buffer.concat(parts);
  }

  /**
   * restore replaces the store's whole state with the snapshot read from `source`. The snapshot
   * is read to its end and checked first (staged in a temporary directory), so a cut, damaged or
   * foreign one fails with a SnapshotError having changed nothing; then records are swapped in
   * at once (Store.replaceState: open watches end, the revision moves above both states), and
   * files and upload bytes follow. `source` is the snapshot's bytes whole or as a stream (a
   * request body, a file's read stream).
   */
  async restore(source: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<RestoreSummary> {
    const dir = await mkdtemp(join(tmpdir(), 'fogbank-restore-'));
    try {
      const staged = await stage(source instanceof Uint8Array ? [source] : source, dir);
      const restoredAt = await this.#turns.run(async () => {
        const revision = await this.#apply(staged);
        await this.options.afterReplace?.();
        return revision;
      });
      return { revision: staged.header.revision, records: staged.records, files: staged.files.length, uploads: staged.uploads.length, restoredAt };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * reset empties the store: every record (open watches end), file and upload; then
   * `afterReplace` seeds what a fresh instance has. Returns the revision the emptied state has.
   */
  async reset(): Promise<number> {
    return this.#turns.run(async () => {
      const revision = await this.store.replaceState(none(), 0);
      for (const id of await listFiles(this.store, this.options.fileFolders)) await this.store.files.remove(id);
      for (const id of await listUploads(this.store)) await this.store.uploads.remove(id);
      await this.options.afterReplace?.();
      return revision;
    });
  }

  async #apply(staged: Staged): Promise<number> {
    const { files, uploads } = this.store;
    const oldFiles = new Set(await listFiles(this.store, this.options.fileFolders));
    const oldUploads = new Set(await listUploads(this.store));
    // Bytes the old state does not have go in before the records that name them; undone if the records fail.
    const added: string[] = [];
    const addedUploads: string[] = [];
    const later: StagedBytes[] = [];
    const laterUploads: StagedBytes[] = [];
    let revision: number;
    try {
      for (const file of staged.files) {
        if (!oldFiles.has(file.id)) {
          await files.adopt(file.id, file.path, 'move');
          added.push(file.id);
        } else if ((await files.size(file.id)) !== file.size) later.push(file);
        // A file of the same id and size is the same file: files are immutable and their ids never reused.
      }
      for (const upload of staged.uploads) {
        if (oldUploads.has(upload.id)) laterUploads.push(upload);
        else {
          addedUploads.push(upload.id);
          await uploads.append(upload.id, 0, localSource(upload.path));
        }
      }
      revision = await this.store.replaceState(stagedRecords(staged.recordsPath), staged.header.revision);
    } catch (error) {
      for (const id of added) await files.remove(id).catch(() => undefined);
      for (const id of addedUploads) await uploads.remove(id).catch(() => undefined);
      throw error;
    }
    const keptFiles = new Set(staged.files.map((file) => file.id));
    const keptUploads = new Set(staged.uploads.map((upload) => upload.id));
    for (const id of oldFiles) if (!keptFiles.has(id)) await files.remove(id);
    for (const file of later) {
      await files.remove(file.id);
      await files.adopt(file.id, file.path, 'move');
    }
    for (const id of oldUploads) if (!keptUploads.has(id)) await uploads.remove(id);
    for (const upload of laterUploads) {
      await uploads.remove(upload.id);
      await uploads.append(upload.id, 0, localSource(upload.path));
    }
    return revision;
  }
}

/** StagedBytes is one file or upload of a snapshot, in the staging directory. */
interface StagedBytes {
  readonly id: string;
  readonly size: number;
  readonly path: string;
}

/** Staged is a snapshot read whole and checked, in the staging directory. */
interface Staged {
  readonly header: SnapshotHeader;
  readonly recordsPath: string;
  readonly records: number;
  readonly files: StagedBytes[];
  readonly uploads: StagedBytes[];
}

/** stage reads the whole snapshot into `dir` (records as JSON lines, each file and upload as a file), checking every frame and the end. */
async function stage(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, dir: string): Promise<Staged> {
  const reader = new FrameReader(source);
  const recordsPath = join(dir, 'records.jsonl');
  const out = createWriteStream(recordsPath);
  // Its errors (a full disk) reach a write's wait for 'drain' or the end; a destroyed stream's are of no interest.
  let failed: Error | undefined;
  out.on('error', (error) => {
    failed ??= error;
  });
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  let records = 0;
  const files: StagedBytes[] = [];
  const uploads: StagedBytes[] = [];
  const fileIds = new Set<string>();
  const uploadIds = new Set<string>();
  try {
    const header = checkHeader(await reader.next());
    for (;;) {
      const frame = await reader.next();
      const index = reader.frame;
      if (frame === undefined) throw new SnapshotError('the snapshot is truncated: it has no end frame');
      const type = frame['type'];
      if (type === 'record') {
        const record = checkRecord(frame, header, index);
        records += 1;
        if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
        if (failed !== undefined) throw failed;
      } else if (type === 'file' || type === 'upload') {
        const { id, size } = checkBytesFrame(frame, index);
        const seen = type === 'file' ? fileIds : uploadIds;
        if (type === 'file') {
          try {
            checkFileId(id);
          } catch {
            throw new SnapshotError(`the snapshot is corrupt: frame ${index} names file ${JSON.stringify(id)}, which is not a valid file id`);
          }
        }
        if (seen.has(id)) throw new SnapshotError(`the snapshot is corrupt: frame ${index} repeats ${type} ${JSON.stringify(id)}`);
        seen.add(id);
        const path = join(dir, `${type}-${seen.size}`);
        await pipeline(Readable.from(reader.bytes(size)), createWriteStream(path));
        (type === 'file' ? files : uploads).push({ id, size, path });
      } else if (type === 'end') {
        const counts = { records: frame['records'], files: frame['files'], uploads: frame['uploads'] };
        const held = { records, files: files.length, uploads: uploads.length };
        if (counts.records !== held.records || counts.files !== held.files || counts.uploads !== held.uploads) {
          throw new SnapshotError(
            `the snapshot is corrupt: its end frame counts ${String(counts.records)} records, ${String(counts.files)} files and ${String(counts.uploads)} uploads, but it holds ${held.records}, ${held.files} and ${held.uploads}`,
          );
        }
        if ((await reader.next()) !== undefined) throw new SnapshotError('the snapshot is corrupt: something follows its end frame');
        out.end();
        await closed;
        if (failed !== undefined) throw failed;
        return { header, recordsPath, records, files, uploads };
      } else {
        throw new SnapshotError(`the snapshot is corrupt: frame ${index} has unknown type ${JSON.stringify(type)}`);
      }
    }
  } catch (error) {
    reader.close();
    out.destroy();
    throw error;
  }
}

/** stagedRecords reads the staged records back, one line each. */
async function* stagedRecords(path: string): AsyncGenerator<StoredRecord> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as StoredRecord;
}

/** listFiles lists the store's files under `folders` (through sweep, keeping every one). */
async function listFiles(store: Store, folders: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const folder of folders) {
    await store.files.sweep(
      folder,
      async (found) => {
        ids.push(...found);
        return new Set(found);
      },
      0,
    );
  }
  return ids.sort();
}

/** listUploads lists the uploads holding bytes (through sweep, keeping every one). */
async function listUploads(store: Store): Promise<string[]> {
  const ids: string[] = [];
  await store.uploads.sweep('', async (found) => {
    ids.push(...found);
    return new Set(found);
  });
  return ids.sort();
}

async function* none(): AsyncGenerator<StoredRecord> {}
