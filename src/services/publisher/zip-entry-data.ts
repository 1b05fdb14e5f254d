/**
 * Reading one ZIP entry's bytes into memory, for every compression method Play accepts: stored
 * (0) and deflated (8), the two that java.util.zip (and so bundletool) reads. The entry's local
 * header is located and checked, its compressed bytes are read straight from the file, deflated
 * data is inflated with a cap of the declared size plus one byte, and the result must match the
 * declared size and CRC-32.
 *
 * Why not yauzl's openReadStream: for a stored entry yauzl hands out its fd-slicer ReadStream,
 * which marks itself `destroyed` before pushing its end; Node's Readable then never emits
 * 'readable' again, so async iteration over it (paused mode) waits forever. Reading the bytes
 * here needs no stream at all, and every failure is a value, not an event nobody hears.
 */

import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { crc32, inflateRaw } from 'node:zlib';
import type { Entry } from 'yauzl';
import { invalidUpload } from './errors.ts';

/** STORED is ZIP compression method 0: the bytes as they are. */
export const STORED = 0;
/** DEFLATED is ZIP compression method 8: raw DEFLATE. */
export const DEFLATED = 8;

/** SUPPORTED_METHODS are the compression methods Play's ZIP reader (java.util.zip) can read. */
export const SUPPORTED_METHODS: ReadonlySet<number> = new Set([STORED, DEFLATED]);

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;

const inflate = promisify(inflateRaw) as (data: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

/**
 * compressedCap is the most compressed bytes an entry of at most `maxBytes` may occupy: DEFLATE
 * grows incompressible data by 5 bytes per stored block of up to 65,535 bytes, so more than this
 * is not a well-formed entry, and reading it would only cost memory.
 */
export function compressedCap(maxBytes: number): number {
  return maxBytes + Math.ceil(maxBytes / 65_535) * 5 + 1024;
}

/**
 * readEntryData returns the uncompressed bytes of `entry` from the archive open as `file` (of
 * `fileSize` bytes); `label` names the entry in messages ("The bundle entry base/…"). The caller
 * has checked that the entry declares at most `maxBytes`. Every problem is a 400.
 */
export async function readEntryData(file: FileHandle, fileSize: number, entry: Entry, maxBytes: number, label: string): Promise<Buffer> {
  if (!SUPPORTED_METHODS.has(entry.compressionMethod))
    throw invalidUpload(`${label} uses compression method ${entry.compressionMethod}; only stored (0) and deflated (8) entries can be read.`);
  if (entry.compressedSize > compressedCap(maxBytes))
    throw invalidUpload(`${label} declares ${entry.compressedSize} compressed bytes; at most ${compressedCap(maxBytes)} are accepted.`);
  const start = await dataStart(file, fileSize, entry, label);
  if (start + entry.compressedSize > fileSize) {
    throw invalidUpload(
      `${label} cannot be read: its ${entry.compressedSize} bytes of data at offset ${start} run past the end of the file (${fileSize} bytes).`,
    );
  }
  const raw = await readFully(file, start, entry.compressedSize, label);
  const data = entry.compressionMethod === STORED ? raw : await inflated(raw, entry.uncompressedSize, label);
  if (data.length !== entry.uncompressedSize)
    throw invalidUpload(`${label} cannot be read: it holds ${data.length} bytes, not the ${entry.uncompressedSize} its header declares.`);
  if (crc32(data) !== entry.crc32) throw invalidUpload(`${label} cannot be read: its CRC-32 does not match its header (the data is corrupt).`);
  return data;
}

/** dataStart reads the entry's local header and returns where its data begins. */
async function dataStart(file: FileHandle, fileSize: number, entry: Entry, label: string): Promise<number> {
  const at = entry.relativeOffsetOfLocalHeader;
  const header = Buffer.alloc(LOCAL_HEADER_BYTES);
  const { bytesRead } = at + LOCAL_HEADER_BYTES <= fileSize ? await file.read(header, 0, LOCAL_HEADER_BYTES, at) : { bytesRead: 0 };
  if (bytesRead < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
    throw invalidUpload(`${label} cannot be read: there is no local file header at offset ${at}.`);
  }
  // The local header repeats the name and has extra fields of its own lengths (often not the central directory's).
  return at + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
}

async function readFully(file: FileHandle, position: number, length: number, label: string): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw invalidUpload(`${label} cannot be read: the file ends inside its data.`);
    done += bytesRead;
  }
  return buffer;
}

/** inflated inflates raw DEFLATE data, stopping one byte past the declared size (a header that lies about its size costs no more). */
async function inflated(raw: Buffer, declared: number, label: string): Promise<Buffer> {
  try {
    return await inflate(raw, { maxOutputLength: declared + 1 });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw invalidUpload(`${label} cannot be read: it inflates to more than the ${declared} bytes its header declares.`);
    throw invalidUpload(`${label} cannot be read: its DEFLATE data is corrupt (${(error as Error).message}).`);
  }
}
