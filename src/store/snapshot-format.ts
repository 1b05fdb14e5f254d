import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { StoredRecord } from './store.ts';

/**
 * The snapshot format, version 1: one gzip stream (node:zlib) of frames. A frame is one line of
 * JSON (a header object, UTF-8, ending in `\n`), followed, for the frames that carry bytes, by
 * exactly `size` raw bytes. In order:
 *
 *   {"format":"fogbank-snapshot","version":1,"fogbank":"0.1.0","revision":N}
 *   {"type":"record","kind":…,"key":…,"createRevision":…,"revision":…,"value":…}   one per record
 *   {"type":"file","id":"mail/raw/…","size":S}  + S bytes                       one per store file
 *   {"type":"upload","id":…,"size":S}           + S bytes                       one per upload session's bytes
 *   {"type":"end","records":R,"files":F,"uploads":U}
 *
 * Nothing may follow the end frame. The end frame's counts, gzip's CRC and its length trailer
 * make a cut or damaged snapshot fail as a whole; a reader never trusts a snapshot before it has
 * read that frame. Readers accept exactly SNAPSHOT_FORMAT_VERSION: a new version is a new
 * number, never a reinterpretation.
 */

/** SNAPSHOT_FORMAT is the `format` of a snapshot's first frame. */
export const SNAPSHOT_FORMAT = 'fogbank-snapshot';

/** SNAPSHOT_FORMAT_VERSION is the version of the format this fogbank writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** MAX_FRAME_LINE bounds one frame's JSON line (a record), so a damaged snapshot cannot make the reader buffer without end: 64 MiB. */
export const MAX_FRAME_LINE = 64 * 1024 * 1024;

/** SnapshotHeader is a snapshot's first frame. */
export interface SnapshotHeader {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: number;
  /** The fogbank version that wrote it (informative: the format version decides). */
  readonly fogbank: string;
  /** The store's revision when it was taken. */
  readonly revision: number;
}

/** SnapshotEnd is a snapshot's last frame. */
export interface SnapshotEnd {
  readonly type: 'end';
  readonly records: number;
  readonly files: number;
  readonly uploads: number;
}

/** SnapshotError says why a snapshot cannot be read (the admin API answers it with a 400, the CLI with exit 2). Nothing was changed. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** frameLine is one frame's JSON line. */
export function frameLine(frame: object): Buffer {
  return Buffer.from(`${JSON.stringify(frame)}\n`, 'utf8');
}

/** recordFrame is the frame of one record. */
export function recordFrame(record: StoredRecord): object {
  return { type: 'record', kind: record.kind, key: record.key, createRevision: record.createRevision, revision: record.revision, value: record.value };
}

/**
 * exactly passes on `size` bytes of `source` and stops it there; fewer bytes fail with a
 * message naming `what` (a file shrinking under the snapshot would otherwise corrupt it).
 */
export async function* exactly(source: AsyncIterable<Uint8Array>, size: number, what: string): AsyncGenerator<Buffer> {
  let left = size;
  if (left > 0) {
    for await (const chunk of source) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (bytes.length >= left) {
        yield bytes.subarray(0, left);
        left = 0;
        break;
      }
      yield bytes;
      left -= bytes.length;
    }
  }
  if (left > 0) throw new Error(`${what} ended ${left} bytes short of its ${size}`);
}

/**
 * FrameReader reads a snapshot's frames from its gzip bytes: checks the gzip magic, inflates,
 * and hands out lines and byte runs. Inflation errors (a cut or damaged stream) and a stream that
 * ends inside a frame become SnapshotErrors.
 */
export class FrameReader {
  readonly #chunks: AsyncIterator<Buffer>;
  readonly #gunzip: Gunzip;
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;
  /** Which frame is being read, for messages (1 = the header). */
  frame = 0;

  constructor(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>) {
    const gunzip = createGunzip();
    this.#gunzip = gunzip;
    // Errors of the source or the inflater surface through the iterator below (pipeline destroys gunzip with them).
    pipeline(Readable.from(checkMagic(source)), gunzip).catch(() => undefined);
    this.#chunks = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** close stops reading (the source is let go). */
  close(): void {
    this.#gunzip.destroy();
  }

  /** line reads the next frame's JSON line and parses it; undefined when the stream ends cleanly between frames. */
  async next(): Promise<Record<string, unknown> | undefined> {
    this.frame += 1;
    for (;;) {
      const end = this.#buffer.indexOf(0x0a);
      if (end >= 0) {
        const text = this.#buffer.subarray(0, end).toString('utf8');
        this.#buffer = this.#buffer.subarray(end + 1);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new SnapshotError(`the snapshot is corrupt: frame ${this.frame} is not JSON`);
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new SnapshotError(`the snapshot is corrupt: frame ${this.frame} is not a JSON object`);
        return parsed as Record<string, unknown>;
      }
      if (this.#buffer.length > MAX_FRAME_LINE) throw new SnapshotError(`the snapshot is corrupt: frame ${this.frame} is longer than ${MAX_FRAME_LINE} bytes`);
      if (!(await this.#more())) {
        if (this.#buffer.length === 0) return undefined;
        throw new SnapshotError(`the snapshot is truncated: it ends inside frame ${this.frame}`);
      }
    }
  }

  /** bytes hands out the `size` bytes that follow the current frame's line. */
  async *bytes(size: number): AsyncGenerator<Buffer> {
    let left = size;
    while (left > 0) {
      if (this.#buffer.length === 0 && !(await this.#more()))
        throw new SnapshotError(`the snapshot is truncated: it ends inside the bytes of frame ${this.frame}`);
      const take = Math.min(left, this.#buffer.length);
      const piece = this.#buffer.subarray(0, take);
      this.#buffer = this.#buffer.subarray(take);
      left -= take;
      yield piece;
    }
  }

  async #more(): Promise<boolean> {
    if (this.#ended) return false;
    let step: IteratorResult<Buffer>;
    try {
      step = await this.#chunks.next();
    } catch (error) {
      if (error instanceof SnapshotError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new SnapshotError(
        message === 'unexpected end of file' ? 'the snapshot is truncated: its gzip stream ends early' : `the snapshot is corrupt: ${message}`,
      );
    }
    if (step.done) {
      this.#ended = true;
      return false;
    }
    this.#buffer = this.#buffer.length === 0 ? step.value : Buffer.concat([this.#buffer, step.value]);
    return true;
  }
}

/** checkMagic passes `source` on, failing first unless it starts as a gzip stream does. */
async function* checkMagic(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const chunk of source) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (checked) {
      yield bytes;
      continue;
    }
    head = Buffer.concat([head, bytes]);
    if (head.length < 2) continue;
    if (head[0] !== 0x1f || head[1] !== 0x8b) throw new SnapshotError('not a fogbank snapshot: it is not gzip data');
    checked = true;
    yield head;
  }
  if (!checked) throw new SnapshotError(head.length === 0 ? 'not a fogbank snapshot: it is empty' : 'not a fogbank snapshot: it is not gzip data');
}

/** checkHeader validates a snapshot's first frame. */
export function checkHeader(frame: Record<string, unknown> | undefined): SnapshotHeader {
  if (frame === undefined || frame['format'] !== SNAPSHOT_FORMAT)
    throw new SnapshotError(`not a fogbank snapshot: its first frame has no "format": "${SNAPSHOT_FORMAT}"`);
  const version = frame['version'];
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotError(
      `the snapshot has format version ${JSON.stringify(version)} (written by fogbank ${JSON.stringify(frame['fogbank'])}); this fogbank reads version ${SNAPSHOT_FORMAT_VERSION}`,
    );
  }
  if (!isCount(frame['revision'])) throw new SnapshotError('the snapshot is corrupt: its header has no valid "revision"');
  return { format: SNAPSHOT_FORMAT, version, fogbank: String(frame['fogbank']), revision: frame['revision'] };
}

/** checkRecord validates a record frame against the header's revision. */
export function checkRecord(frame: Record<string, unknown>, header: SnapshotHeader, index: number): StoredRecord {
  const { kind, key, createRevision, revision } = frame;
  const ok =
    typeof kind === 'string' &&
    kind !== '' &&
    typeof key === 'string' &&
    isCount(createRevision) &&
    isCount(revision) &&
    createRevision >= 1 &&
    createRevision <= revision &&
    revision <= header.revision &&
    'value' in frame;
  if (!ok) throw new SnapshotError(`the snapshot is corrupt: frame ${index} is not a valid record`);
  return { kind, key, value: frame['value'], createRevision, revision };
}

/** checkBytesFrame validates a file or upload frame's id and size. */
export function checkBytesFrame(frame: Record<string, unknown>, index: number): { id: string; size: number } {
  const { id, size } = frame;
  if (typeof id !== 'string' || id === '' || !isCount(size))
    throw new SnapshotError(`the snapshot is corrupt: frame ${index} is not a valid ${String(frame['type'])} frame`);
  return { id, size };
}

/** isCount is true for a non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
