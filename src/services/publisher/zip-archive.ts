/**
 * A ZIP archive opened from a file for inspection: the central directory is read (through
 * yauzl, never the whole file), checked for sanity, for compression methods Play can read and
 * for bomb-like declared sizes, and single small entries are read with a hard cap
 * (zip-entry-data.ts). Nothing here knows about bundles or APKs.
 */

import { open as openFile, type FileHandle } from 'node:fs/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { invalidUpload } from './errors.ts';
import { readEntryData, SUPPORTED_METHODS } from './zip-entry-data.ts';

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
/** ENCRYPTED is general-purpose flag bit 0: the entry's data is encrypted. */
const ENCRYPTED = 0x1;

/** ZipArchive is an opened, checked archive: its entries by name, and a capped reader. */
export class ZipArchive {
  private constructor(
    private readonly file: FileHandle,
    private readonly fileSize: number,
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
    const file = await openFile(path, 'r');
    try {
      await requireZipMagic(file, what);
      const fileSize = (await file.stat()).size;
      // yauzl reads the directory through the same descriptor. Its ZipFile is never closed: that
      // would close the descriptor under the FileHandle, which this archive closes instead.
      const zip = await new Promise<ZipFile>((resolve, reject) => {
        yauzl.fromFd(file.fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (error, opened) => {
          if (error !== null || opened === undefined) reject(invalidUpload(`The uploaded ${what} is not a valid ZIP archive: ${describe(error)}.`));
          else resolve(opened);
        });
      });
      // yauzl starts its entry cursor at the central directory's offset (its typings call it boolean).
      const centralDirectoryOffset = Number(zip.readEntryCursor);
      if (zip.entryCount > limits.maxEntries)
        throw invalidUpload(`The uploaded ${what} has ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted.`);
      const entries = await readDirectory(zip, what, limits, centralDirectoryOffset);
      return new ZipArchive(file, fileSize, entries, centralDirectoryOffset);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** has is true when the archive holds a file of that name. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * read returns one entry's bytes, refusing it when it declares, or turns out to hold, more than
   * `maxBytes` (the cap protects against headers that lie about their size).
   */
  async read(name: string, maxBytes: number, what: string): Promise<Buffer> {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new Error(`no entry ${name}`);
    if (entry.uncompressedSize > maxBytes)
      throw invalidUpload(`The ${what} entry ${name} declares ${entry.uncompressedSize} bytes; at most ${maxBytes} are accepted.`);
    return readEntryData(this.file, this.fileSize, entry, maxBytes, `The ${what} entry ${name}`);
  }

  /** close releases the file descriptor. */
  async close(): Promise<void> {
    await this.file.close();
  }
}

async function requireZipMagic(file: FileHandle, what: string): Promise<void> {
  const head = Buffer.alloc(4);
  const { bytesRead } = await file.read(head, 0, 4, 0);
  if (bytesRead < 4 || !head.equals(ZIP_LOCAL_HEADER))
    throw invalidUpload(`The uploaded ${what} is not a ZIP archive (it does not start with a ZIP local file header).`);
}

function readDirectory(zip: ZipFile, what: string, limits: ZipLimits, centralDirectoryOffset: number): Promise<Map<string, Entry>> {
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
          refuse(
            invalidUpload(
              `The uploaded ${what} looks like a ZIP bomb: entry ${entry.fileName} declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} compressed.`,
            ),
          );
          return;
        }
        // Cheap, and it catches sizes no reader could honour in entries inspection never reads.
        const dataEnd = entry.relativeOffsetOfLocalHeader + 30 + entry.fileNameLength + entry.compressedSize;
        if (dataEnd > centralDirectoryOffset) {
          refuse(
            invalidUpload(
              `The uploaded ${what}'s entry ${entry.fileName} declares ${entry.compressedSize} bytes of data at offset ${entry.relativeOffsetOfLocalHeader}, past the start of the central directory (offset ${centralDirectoryOffset}).`,
            ),
          );
          return;
        }
        if (!SUPPORTED_METHODS.has(entry.compressionMethod)) {
          refuse(
            invalidUpload(
              `The uploaded ${what}'s entry ${entry.fileName} uses compression method ${entry.compressionMethod}; only stored (0) and deflated (8) entries are accepted.`,
            ),
          );
          return;
        }
        if ((entry.generalPurposeBitFlag & ENCRYPTED) !== 0) {
          refuse(invalidUpload(`The uploaded ${what}'s entry ${entry.fileName} is encrypted; encrypted entries are not accepted.`));
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
