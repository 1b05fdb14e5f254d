/**
 * A ZIP archive opened from a file for inspection: the central directory is read (through
 * yauzl, never the whole file), checked for sanity and for bomb-like declared sizes, and single
 * small entries are inflated with a hard cap. Nothing here knows about bundles or APKs.
 */

import { open as openFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { invalidUpload, PublisherError } from './errors.ts';

/** ZipLimits bound what an archive may declare before fogbank refuses it as a ZIP bomb. */
export interface ZipLimits {
  /** Most entries in the central directory. */
  readonly maxEntries: number;
  /** Most bytes all entries may declare uncompressed, together. */
  readonly maxExpandedBytes: number;
  /**
   * Highest declared uncompressed/compressed ratio for an entry larger than 1 MiB. DEFLATE
   * cannot exceed about 1032:1, so a higher declared ratio is a forged header.
   */
  readonly maxRatio: number;
}

/** DEFAULT_ZIP_LIMITS are generous for real bundles (tens of thousands of entries) and refuse bombs. */
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 100_000, maxExpandedBytes: 16 * 1024 ** 3, maxRatio: 1100 };

const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const RATIO_FLOOR = 1024 * 1024;

/** ZipArchive is an opened, checked archive: its entries by name, and a capped reader. */
export class ZipArchive {
  private constructor(
    private readonly zip: ZipFile,
    /** entries by file name (directories excluded). */
    readonly entries: ReadonlyMap<string, Entry>,
    /** Where the central directory starts (an APK's signing block ends there). */
    readonly centralDirectoryOffset: number,
  ) {}

  /**
   * open reads and checks the central directory of the ZIP file at `path`. Every failure is a
   * 400 naming what is wrong with the upload; `what` names the upload in messages ("bundle").
   */
  static async open(path: string, what: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipArchive> {
    await requireZipMagic(path, what);
    const zip = await new Promise<ZipFile>((resolve, reject) => {
      yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (error, opened) => {
        if (error !== null || opened === undefined) reject(invalidUpload(`The uploaded ${what} is not a valid ZIP archive: ${describe(error)}.`));
        else resolve(opened);
      });
    });
    // yauzl starts its entry cursor at the central directory's offset (its typings call it boolean).
    const centralDirectoryOffset = Number(zip.readEntryCursor);
    try {
      if (zip.entryCount > limits.maxEntries) throw invalidUpload(`The uploaded ${what} has ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted.`);
      const entries = await readDirectory(zip, what, limits);
      return new ZipArchive(zip, entries, centralDirectoryOffset);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /** has is true when the archive holds a file of that name. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * read inflates one entry into memory, refusing it when it declares, or turns out to hold, more
   * than `maxBytes` (the cap protects against headers that lie about their size).
   */
  async read(name: string, maxBytes: number, what: string): Promise<Buffer> {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new Error(`no entry ${name}`);
    if (entry.uncompressedSize > maxBytes) throw invalidUpload(`The ${what} entry ${name} declares ${entry.uncompressedSize} bytes; at most ${maxBytes} are accepted.`);
    const stream = await new Promise<Readable>((resolve, reject) => {
      this.zip.openReadStream(entry, (error, opened) => {
        if (error !== null || opened === undefined) reject(invalidUpload(`The ${what} entry ${name} cannot be read: ${describe(error)}.`));
        else resolve(opened);
      });
    });
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) throw invalidUpload(`The ${what} entry ${name} inflates to more than ${maxBytes} bytes.`);
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      stream.destroy();
      // yauzl reports corrupt data (bad deflate stream, size or CRC mismatch) as plain Errors.
      if (error instanceof PublisherError) throw error;
      throw invalidUpload(`The ${what} entry ${name} cannot be read: ${describe(error)}.`);
    }
    return Buffer.concat(chunks, total);
  }

  /** close releases the file descriptor. */
  close(): void {
    this.zip.close();
  }
}

async function requireZipMagic(path: string, what: string): Promise<void> {
  const handle = await openFile(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead < 4 || !head.equals(ZIP_LOCAL_HEADER)) throw invalidUpload(`The uploaded ${what} is not a ZIP archive (it does not start with a ZIP local file header).`);
  } finally {
    await handle.close();
  }
}

function readDirectory(zip: ZipFile, what: string, limits: ZipLimits): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    let expanded = 0;
    const refuse = (error: unknown): void => {
      zip.removeAllListeners();
      // Anything yauzl still reports is moot now, and must not become an uncaught 'error' event.
      zip.on('error', () => undefined);
      reject(error);
    };
    zip.on('entry', (entry: Entry) => {
      if (!entry.fileName.endsWith('/')) {
        expanded += entry.uncompressedSize;
        if (expanded > limits.maxExpandedBytes) {
          refuse(invalidUpload(`The uploaded ${what} looks like a ZIP bomb: its entries declare more than ${limits.maxExpandedBytes} bytes uncompressed.`));
          return;
        }
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (entry.uncompressedSize > RATIO_FLOOR && ratio > limits.maxRatio) {
          refuse(invalidUpload(`The uploaded ${what} looks like a ZIP bomb: entry ${entry.fileName} declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} compressed.`));
          return;
        }
        if (entries.has(entry.fileName)) {
          refuse(invalidUpload(`The uploaded ${what} has two entries named ${entry.fileName}.`));
          return;
        }
        entries.set(entry.fileName, entry);
      }
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (error: unknown) => refuse(invalidUpload(`The uploaded ${what} is not a valid ZIP archive: ${describe(error)}.`)));
    zip.readEntry();
  });
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\.$/, '');
}
