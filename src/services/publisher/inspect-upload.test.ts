import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import { apkItems, binaryManifest, bundleItems, jarSign, makeSigner, v2Sign, writeZip, zipBuffer } from './artifact-builder.fixture.ts';
import { decodeBinaryManifest } from './binary-axml.ts';
import { inspectUpload } from './inspect-upload.ts';
import { certificateFingerprint } from './jar-signature.ts';
import { ANDROID_NAMESPACE, decodeProtoManifest } from './manifest.ts';
import { XmlNodeSchema } from './proto/aapt-resources_pb.ts';
import { DEFAULT_ZIP_LIMITS } from './zip-archive.ts';

/** Inspection pieces on their own: manifests in both encodings, ZIP limits, signatures and fogbank's signing identity. */

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'fogbank-inspect-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

const sizeOf = (path: string): number => statSync(path).size;

describe('manifests', () => {
  test('a protobuf manifest whose versionCode aapt2 left as text (decimal or hex) is read from the text', async () => {
    for (const [text, expected] of [
      ['12', 12],
      ['0x1F', 31],
    ] as const) {
      const node = create(XmlNodeSchema, {
        node: {
          case: 'element',
          value: {
            name: 'manifest',
            attribute: [
              { name: 'package', value: 'com.example.text' },
              { namespaceUri: ANDROID_NAMESPACE, name: 'versionCode', value: text },
            ],
          },
        },
      });
      assert.deepEqual(await decodeProtoManifest(toBinary(XmlNodeSchema, node), 'm'), {
        packageName: 'com.example.text',
        versionCode: expected,
        versionName: undefined,
      });
    }
  });

  test('a protobuf manifest without a package attribute is refused', async () => {
    const node = create(XmlNodeSchema, { node: { case: 'element', value: { name: 'manifest' } } });
    await assert.rejects(decodeProtoManifest(toBinary(XmlNodeSchema, node), 'base/manifest/AndroidManifest.xml'), {
      message: "The bundle's base/manifest/AndroidManifest.xml has no package attribute.",
    });
  });

  test('binary AXML: package, versionCode and versionName; truncation is a clear error', () => {
    const bytes = binaryManifest({ packageName: 'com.example.axml', versionCode: 2_000_001, versionName: '2.0' });
    assert.deepEqual(decodeBinaryManifest(bytes, 'AndroidManifest.xml'), { packageName: 'com.example.axml', versionCode: 2_000_001, versionName: '2.0' });
    assert.throws(() => decodeBinaryManifest(bytes.subarray(0, 40), 'AndroidManifest.xml'), {
      message: "The APK's AndroidManifest.xml is not valid binary XML: chunk at offset 8 has an invalid size.",
    });
    assert.throws(() => decodeBinaryManifest(Buffer.from('<manifest/>'), 'AndroidManifest.xml'), {
      message: "The APK's AndroidManifest.xml is not valid binary XML: it does not start with an XML chunk header.",
    });
  });
});

describe('archives', () => {
  test('an archive over the entry count or declared expanded size limits is refused before anything is inflated', async () => {
    const path = join(work, 'limits.aab');
    await writeZip(path, bundleItems({ packageName: 'com.example.limits' }));
    const size = sizeOf(path);
    await assert.rejects(inspectUpload(path, size, 'bundle', 'com.example.limits', { ...DEFAULT_ZIP_LIMITS, maxEntries: 3 }), {
      message: 'The uploaded bundle has 4 entries; at most 3 are accepted.',
    });
    await assert.rejects(inspectUpload(path, size, 'bundle', 'com.example.limits', { ...DEFAULT_ZIP_LIMITS, maxExpandedBytes: 100 }), {
      message: 'The uploaded bundle looks like a ZIP bomb: its entries declare more than 100 bytes uncompressed.',
    });
  });

  test("a signed APK gives its signer's certificate; a signature block without its .SF is refused", async () => {
    const signer = makeSigner('APK Signer');
    const path = join(work, 'signed.apk');
    await writeZip(path, jarSign(apkItems({ packageName: 'com.example.signed', versionCode: 5 }), signer));
    const inspection = await inspectUpload(path, sizeOf(path), 'apk', 'com.example.signed');
    assert.ok(inspection.certificate!.equals(signer.certificateDer));
    const orphan = join(work, 'orphan.apk');
    await writeZip(
      orphan,
      jarSign(apkItems({ packageName: 'com.example.signed' }), signer).filter((item) => item.name !== 'META-INF/CERT.SF'),
    );
    await assert.rejects(inspectUpload(orphan, sizeOf(orphan), 'apk', 'com.example.signed'), {
      message: "The APK's JAR signature block META-INF/CERT.RSA has no signature file META-INF/CERT.SF.",
    });
  });
});

describe('APK Signature Scheme v2', () => {
  test("a v2-only APK gives its signer's certificate; a v2 block wins over a JAR signature by another key", async () => {
    const v2Signer = makeSigner('V2 Signer');
    const v2Only = join(work, 'v2.apk');
    writeFileSync(v2Only, v2Sign(await zipBuffer(apkItems({ packageName: 'com.example.v2' })), v2Signer));
    const inspection = await inspectUpload(v2Only, sizeOf(v2Only), 'apk', 'com.example.v2');
    assert.ok(inspection.certificate!.equals(v2Signer.certificateDer));
    const both = join(work, 'v1-v2.apk');
    writeFileSync(both, v2Sign(await zipBuffer(jarSign(apkItems({ packageName: 'com.example.v2' }), makeSigner('V1 Signer'))), v2Signer));
    assert.ok((await inspectUpload(both, sizeOf(both), 'apk', 'com.example.v2')).certificate!.equals(v2Signer.certificateDer));
  });

  test('a v2 block whose signature does not match its signed data is refused', async () => {
    const signed = v2Sign(await zipBuffer(apkItems({ packageName: 'com.example.v2' })), makeSigner('V2 Signer'));
    // The signature entry is the last `0x0103` algorithm id in the block: [id u32][length u32][signature…]. Flip a signature byte.
    const entry = signed.lastIndexOf(Buffer.from([0x03, 0x01, 0x00, 0x00]), signed.indexOf(Buffer.from('APK Sig Block 42')));
    const tampered = Buffer.from(signed);
    tampered[entry + 12] = tampered[entry + 12]! ^ 0xff;
    const path = join(work, 'v2-tampered.apk');
    writeFileSync(path, tampered);
    await assert.rejects(inspectUpload(path, sizeOf(path), 'apk', 'com.example.v2'), {
      message: "The APK's v2 signature does not verify with its signer's certificate.",
    });
  });
});

describe('certificate fingerprints', () => {
  test('certificateFingerprint is colon-separated uppercase SHA-256', () => {
    const der = makeSigner('Format').certificateDer;
    writeFileSync(join(work, 'format.der'), der);
    const printed = execFileSync('openssl', ['x509', '-inform', 'DER', '-in', join(work, 'format.der'), '-noout', '-fingerprint', '-sha256'], {
      encoding: 'utf8',
    });
    assert.equal(`sha256 Fingerprint=${certificateFingerprint(der)}`, printed.trim());
    assert.match(certificateFingerprint(der), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });
});
