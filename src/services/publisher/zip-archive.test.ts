import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  apkItems,
  bundleItems,
  COMPRESSIONS,
  compressedAs,
  jarSign,
  makeSigner,
  patchEntry,
  v2Sign,
  zipBuffer,
  type TestSigner,
} from './artifact-builder.fixture.ts';
import { inspectUpload } from './inspect-upload.ts';
import { compressedCap } from './zip-entry-data.ts';

/**
 * Reading ZIP entries whatever their compression: stored, deflated and mixed bundles and APKs
 * (signed or not) are all inspected, and every corrupt archive — an unsupported or encrypted
 * entry, a broken central directory or local header, data that runs past the file or lies about
 * its size or CRC — is a 400 naming the problem, never a wait.
 */

let work: string;
let signer: TestSigner;
let n = 0;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'fogbank-zip-'));
  signer = makeSigner('Compression Test');
});
after(() => rmSync(work, { recursive: true, force: true }));

const PKG = 'com.example.zip';
const MANIFEST = 'base/manifest/AndroidManifest.xml';

/** inspect writes `zip` to a file and inspects it as `kind` for PKG. */
async function inspect(zip: Buffer, kind: 'bundle' | 'apk' = 'bundle') {
  const path = join(work, `upload-${n++}`);
  writeFileSync(path, zip);
  return inspectUpload(path, zip.length, kind, PKG);
}

/** refused asserts that inspecting `zip` fails with exactly `message`. */
async function refused(zip: Buffer, message: string, kind: 'bundle' | 'apk' = 'bundle'): Promise<void> {
  await assert.rejects(inspect(zip, kind), (error: Error & { httpStatus?: number }) => {
    assert.equal(error.message, message);
    assert.equal(error.httpStatus, 400);
    return true;
  });
}

describe('every compression method Play reads', () => {
  for (const compression of COMPRESSIONS) {
    test(`a ${compression} bundle is inspected: package, version and its JAR signer`, async () => {
      const zip = await zipBuffer(compressedAs(jarSign(bundleItems({ packageName: PKG, versionCode: 9, versionName: '9.0' }), signer), compression));
      const inspection = await inspect(zip);
      assert.deepEqual(inspection.manifest, { packageName: PKG, versionCode: 9, versionName: '9.0' });
      assert.ok(inspection.certificate!.equals(signer.certificateDer));
    });

    test(`a ${compression} APK is inspected, unsigned, JAR-signed and v2-signed`, async () => {
      const items = apkItems({ packageName: PKG, versionCode: 3, versionName: '0.3' });
      const unsigned = await inspect(await zipBuffer(compressedAs(items, compression)), 'apk');
      assert.deepEqual(unsigned.manifest, { packageName: PKG, versionCode: 3, versionName: '0.3' });
      assert.equal(unsigned.certificate, undefined);
      const jar = await inspect(await zipBuffer(compressedAs(jarSign(items, signer), compression)), 'apk');
      assert.ok(jar.certificate!.equals(signer.certificateDer));
      const v2 = await inspect(v2Sign(await zipBuffer(compressedAs(items, compression)), signer), 'apk');
      assert.ok(v2.certificate!.equals(signer.certificateDer));
    });
  }

  test('an entry of a compression method Play cannot read (bzip2, LZMA, unknown) is refused by name', async () => {
    const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), 'stored'));
    for (const method of [12, 14, 99]) {
      await refused(
        patchEntry(zip, 'base/dex/classes.dex', { method }),
        `The uploaded bundle's entry base/dex/classes.dex uses compression method ${method}; only stored (0) and deflated (8) entries are accepted.`,
      );
    }
  });

  test('an encrypted entry is refused by name', async () => {
    const zip = await zipBuffer(bundleItems({ packageName: PKG }));
    await refused(patchEntry(zip, MANIFEST, { flags: 0x0801 }), `The uploaded bundle's entry ${MANIFEST} is encrypted; encrypted entries are not accepted.`);
  });
});

describe('corrupt archives', () => {
  test('a truncated central directory (a record missing, the end record intact)', async () => {
    const zip = await zipBuffer(bundleItems({ packageName: PKG }));
    const eocd = zip.lastIndexOf('PK\x05\x06');
    const last = zip.lastIndexOf('PK\x01\x02', eocd);
    const cut = Buffer.concat([zip.subarray(0, last), zip.subarray(eocd)]);
    await refused(cut, 'The uploaded bundle is not a valid ZIP archive: unexpected EOF.');
  });

  for (const compression of ['stored', 'deflated'] as const) {
    test(`a ${compression} entry whose local header is broken`, async () => {
      const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), compression));
      const offset = zip.indexOf(`PK\x03\x04`, zip.indexOf(Buffer.from(MANIFEST)) - 40);
      await refused(
        patchEntry(zip, MANIFEST, { localSignature: 0x12345678 }),
        `The bundle entry ${MANIFEST} cannot be read: there is no local file header at offset ${offset}.`,
      );
    });

    test(`a ${compression} entry whose data is corrupt (CRC-32 mismatch)`, async () => {
      const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), compression));
      await refused(
        patchEntry(zip, 'BundleConfig.pb', { crc32: 0xdeadbeef }),
        'The bundle entry BundleConfig.pb cannot be read: its CRC-32 does not match its header (the data is corrupt).',
      );
    });
  }

  test('a stored entry whose sizes disagree', async () => {
    const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), 'stored'));
    await refused(
      patchEntry(zip, MANIFEST, { uncompressedSize: 5 }),
      `The uploaded bundle is not a valid ZIP archive: compressed/uncompressed size mismatch for stored file: ${sizeOf(zip, MANIFEST)} != 5.`,
    );
  });

  test('an entry whose data would run into the central directory, or whose local header runs past the file', async () => {
    const zip = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), 'stored'));
    const cd = zip.readUInt32LE(zip.lastIndexOf('PK\x05\x06') + 16);
    const local = zip.readUInt32LE(centralRecord(zip, MANIFEST) + 42);
    await refused(
      patchEntry(zip, MANIFEST, { compressedSize: 1_000_000, uncompressedSize: 1_000_000 }),
      `The uploaded bundle's entry ${MANIFEST} declares 1000000 bytes of data at offset ${local}, past the start of the central directory (offset ${cd}).`,
    );
    const longExtra = Buffer.from(zip);
    longExtra.writeUInt16LE(0xffff, local + 28);
    const start = local + 30 + MANIFEST.length + 0xffff;
    await refused(
      longExtra,
      `The bundle entry ${MANIFEST} cannot be read: its ${sizeOf(zip, MANIFEST)} bytes of data at offset ${start} run past the end of the file (${zip.length} bytes).`,
    );
  });

  test('bomb-like declared sizes: a stored entry of 4 GiB, a deflated entry claiming 1 GiB from 8 bytes', async () => {
    const stored = await zipBuffer(compressedAs(bundleItems({ packageName: PKG }), 'stored'));
    const at = stored.readUInt32LE(centralRecord(stored, 'base/resources.pb') + 42);
    const cd = stored.readUInt32LE(stored.lastIndexOf('PK\x05\x06') + 16);
    await refused(
      patchEntry(stored, 'base/resources.pb', { compressedSize: 0xfffffff0, uncompressedSize: 0xfffffff0 }),
      `The uploaded bundle's entry base/resources.pb declares 4294967280 bytes of data at offset ${at}, past the start of the central directory (offset ${cd}).`,
    );
    const deflated = await zipBuffer(bundleItems({ packageName: PKG }));
    await refused(
      patchEntry(deflated, 'base/resources.pb', { compressedSize: 8, uncompressedSize: 1024 ** 3 }),
      'The uploaded bundle looks like a ZIP bomb: entry base/resources.pb declares 1073741824 bytes from 8 compressed.',
    );
  });

  test('a deflated manifest whose data inflates past its declared size, or is not DEFLATE at all', async () => {
    const zip = await zipBuffer(bundleItems({ packageName: PKG }));
    await refused(
      patchEntry(zip, MANIFEST, { uncompressedSize: 3 }),
      `The bundle entry ${MANIFEST} cannot be read: it inflates to more than the 3 bytes its header declares.`,
    );
    const garbage = Buffer.from(zip);
    const start = dataOffset(zip, MANIFEST);
    garbage.fill(0xff, start, start + 4);
    await refused(garbage, `The bundle entry ${MANIFEST} cannot be read: its DEFLATE data is corrupt (invalid block type).`);
  });

  test('an entry claiming more compressed bytes than any entry of its cap could hold', async () => {
    // A large stored entry after it keeps the claim inside the file, so only the cap can refuse it.
    const zip = await zipBuffer([...bundleItems({ packageName: PKG }), { name: 'base/assets/pad', data: Buffer.alloc(3 * 1024 * 1024, 1), compress: false }]);
    const claimed = 2 * 1024 * 1024;
    await refused(
      patchEntry(zip, 'BundleConfig.pb', { compressedSize: claimed }),
      `The bundle entry BundleConfig.pb declares ${claimed} compressed bytes; at most ${compressedCap(1024 * 1024)} are accepted.`,
    );
  });
});

/** centralRecord finds entry `name`'s central directory record. */
function centralRecord(zip: Buffer, name: string): number {
  for (let at = zip.indexOf('PK\x01\x02'); at !== -1; at = zip.indexOf('PK\x01\x02', at + 4)) {
    if (zip.toString('utf8', at + 46, at + 46 + zip.readUInt16LE(at + 28)) === name) return at;
  }
  throw new Error(`no entry ${name}`);
}

function sizeOf(zip: Buffer, name: string): number {
  return zip.readUInt32LE(centralRecord(zip, name) + 24);
}

/** dataOffset is where entry `name`'s data starts (after its local header, name and extra field). */
function dataOffset(zip: Buffer, name: string): number {
  const local = zip.readUInt32LE(centralRecord(zip, name) + 42);
  return local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
}
