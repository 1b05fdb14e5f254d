import { crc32, deflateRawSync } from 'node:zlib';
import { apkItems, bundleItems } from '../../src/services/publisher/artifact-builder.fixture.ts';
import type { Random } from './random.ts';

/**
 * Archives for the upload routes, written byte by byte so each entry's compression method and
 * every header field is the fuzzer's to choose: stored (what `zip` does with tiny files and
 * Python's zipfile by default), deflated, mixed, and broken ones — a wrong CRC, corrupt deflate
 * data, an unsupported method (bzip2, LZMA, AES), sizes that lie, a data descriptor, truncation.
 */

interface Entry {
  readonly name: string;
  readonly data: Buffer;
  /** The method written in the headers. */
  readonly method: number;
  /** The bytes written as the entry's data (compressed or not, or garbage). */
  readonly payload: Buffer;
  readonly crc: number;
  /** The uncompressed size the headers claim. */
  readonly size: number;
  /** Flag bit 3: sizes and CRC left zero in the local header, written after the data instead. */
  readonly descriptor?: boolean;
}

function entry(name: string, data: Buffer, method: number): Entry {
  const payload = method === 8 ? deflateRawSync(data) : data;
  return { name, data, method, payload, crc: crc32(data), size: data.length };
}

/** writeChecks writes an entry's CRC, stored size and uncompressed size at `at` (local header, central header and data descriptor all carry them so). */
function writeChecks(header: Buffer, at: number, e: Entry): void {
  header.writeUInt32LE(e.crc >>> 0, at);
  header.writeUInt32LE(e.payload.length, at + 4);
  header.writeUInt32LE(e.size, at + 8);
}

/**
 * writeEntryFields writes the run of fields the local header (from byte 4) and the central
 * directory header (from byte 6) share: version needed, flags, method, DOS time and date, the
 * checks (left zero in a local header whose entry has a data descriptor) and the name's length.
 */
function writeEntryFields(header: Buffer, at: number, e: Entry, name: Buffer, checks: boolean): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(e.descriptor === true ? 0x0008 : 0, at + 2);
  header.writeUInt16LE(e.method, at + 4);
  header.writeUInt16LE(0x6000, at + 6);
  header.writeUInt16LE(0x5a21, at + 8);
  if (checks) writeChecks(header, at + 10, e);
  header.writeUInt16LE(name.length, at + 22);
}

/** zipOf writes entries as a ZIP archive: local headers and data, central directory, end record. */
function zipOf(entries: readonly Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, e, name, e.descriptor !== true);
    const parts = [local, name, e.payload];
    if (e.descriptor === true) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      writeChecks(descriptor, 4, e);
      parts.push(descriptor);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    writeEntryFields(central, 6, e, name, true);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    const bytes = Buffer.concat(parts);
    locals.push(bytes);
    offset += bytes.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** ZIP_VARIANTS name the ways an archive is built or broken. */
export const ZIP_VARIANTS = [
  'stored',
  'deflated',
  'mixed',
  'bad crc',
  'corrupt deflate',
  'unsupported method',
  'sizes lie',
  'data descriptor',
  'truncated',
  'duplicate entry',
  'empty',
  'not a zip',
] as const;

/** ZipVariant is one of ZIP_VARIANTS. */
export type ZipVariant = (typeof ZIP_VARIANTS)[number];

/** fuzzZip builds a bundle or an APK for com.example.fuzz the way `variant` says. */
export function fuzzZip(kind: 'bundle' | 'apk', variant: ZipVariant, random: Random): Buffer {
  const items = (kind === 'bundle' ? bundleItems : apkItems)({ packageName: 'com.example.fuzz', versionCode: 1 + random.int(1000) }).map((item) => ({
    name: item.name,
    data: 'data' in item ? item.data : Buffer.alloc(0),
  }));
  const pick = (index: number, method: number): Entry => entry(items[index]!.name, items[index]!.data, method);
  const all = (method: (index: number) => number): Entry[] => items.map((_, index) => pick(index, method(index)));
  const one = random.int(items.length);
  switch (variant) {
    case 'stored':
      return zipOf(all(() => 0));
    case 'deflated':
      return zipOf(all(() => 8));
    case 'mixed':
      return zipOf(all((index) => (index % 2 === 0 ? 0 : 8)));
    case 'bad crc':
      return zipOf(all(() => random.pick([0, 8])).map((e, index) => (index === one ? { ...e, crc: e.crc ^ 0xdeadbeef } : e)));
    case 'corrupt deflate':
      return zipOf(
        all(() => 8).map((e, index) => (index === one ? { ...e, payload: Buffer.from([0xff, 0xff, 0x00, 0x13, 0x37, ...e.payload.subarray(5)]) } : e)),
      );
    case 'unsupported method':
      return zipOf(all(() => 0).map((e, index) => (index === one ? { ...e, method: random.pick([1, 6, 9, 12, 14, 19, 93, 95, 98, 99, 0xffff]) } : e)));
    case 'sizes lie':
      return zipOf(all(() => random.pick([0, 8])).map((e, index) => (index === one ? { ...e, size: random.pick([0, e.size + 1, 0xffffffff, 2 ** 31]) } : e)));
    case 'data descriptor':
      return zipOf(all(() => random.pick([0, 8])).map((e) => ({ ...e, descriptor: true })));
    case 'truncated': {
      const whole = zipOf(all(() => random.pick([0, 8])));
      return whole.subarray(0, random.int(whole.length));
    }
    case 'duplicate entry':
      return zipOf([...all(() => 8), pick(one, 0)]);
    case 'empty':
      return zipOf([]);
    case 'not a zip':
      return Buffer.from(random.pick(['PK\u0003\u0004', 'not a zip at all', '\u0000'.repeat(100), 'PK\u0005\u0006']), 'latin1');
  }
}
