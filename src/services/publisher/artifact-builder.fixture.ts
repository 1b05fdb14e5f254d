/**
 * Test support: builds app bundles and APKs from nothing, the way the Android toolchain lays them
 * out — a ZIP (yazl) with a protobuf manifest (aapt2's XmlNode) and BundleConfig.pb for bundles,
 * or a binary-XML AndroidManifest.xml for APKs — optionally jar-signed (MANIFEST.MF, CERT.SF,
 * CERT.RSA as jarsigner writes them) with a certificate made here with node-forge.
 */

import { createHash, createPrivateKey, generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, toBinary } from '@bufbuild/protobuf';
import forge from 'node-forge';
import yazl from 'yazl';
import { ANDROID_NAMESPACE } from './manifest.ts';
import { BundleConfigSchema, BundletoolSchema, XmlAttributeSchema, XmlElementSchema, XmlNodeSchema } from './proto/aapt-resources_pb.ts';

/** AppIdentity is what a test manifest declares. */
export interface AppIdentity {
  readonly packageName: string;
  readonly versionCode?: number;
  readonly versionName?: string;
}

/** TestSigner is a signing key and its self-signed certificate. */
export interface TestSigner {
  readonly certificatePem: string;
  readonly certificateDer: Buffer;
  readonly privateKeyPem: string;
}

/** ZipItem is one file of a test archive: bytes, or a stream of `size` bytes (for large payloads). */
export type ZipItem =
  | { readonly name: string; readonly data: Buffer; readonly compress?: boolean }
  | { readonly name: string; readonly stream: () => Readable; readonly size: number };

/** makeSigner generates an RSA key (node:crypto, fast) and a self-signed certificate for it (node-forge). */
export function makeSigner(commonName = 'Fogbank Test Upload Key'): TestSigner {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  certificate.serialNumber = '01' + createHash('sha256').update(commonName).digest('hex').slice(0, 14);
  certificate.validity.notBefore = new Date(Date.UTC(2024, 0, 1));
  certificate.validity.notAfter = new Date(Date.UTC(2049, 0, 1));
  const attrs = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Fogbank Tests' },
  ];
  certificate.setSubject(attrs);
  certificate.setIssuer(attrs);
  certificate.sign(key, forge.md.sha256.create());
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary');
  return { certificatePem: forge.pki.certificateToPem(certificate), certificateDer: der, privateKeyPem };
}

/** protoManifest encodes an AndroidManifest.xml as aapt2 does inside a bundle (aapt.pb.XmlNode). */
export function protoManifest(app: AppIdentity): Buffer {
  const attribute = [create(XmlAttributeSchema, { name: 'package', value: app.packageName })];
  if (app.versionCode !== undefined) {
    attribute.push(
      create(XmlAttributeSchema, {
        namespaceUri: ANDROID_NAMESPACE,
        name: 'versionCode',
        value: String(app.versionCode),
        resourceId: 0x0101021b,
        compiledItem: { prim: { oneofValue: { case: 'intDecimalValue', value: app.versionCode } } },
      }),
    );
  }
  if (app.versionName !== undefined)
    attribute.push(create(XmlAttributeSchema, { namespaceUri: ANDROID_NAMESPACE, name: 'versionName', value: app.versionName, resourceId: 0x0101021c }));
  const application = create(XmlNodeSchema, { node: { case: 'element', value: create(XmlElementSchema, { name: 'application' }) } });
  const manifest = create(XmlElementSchema, {
    namespaceDeclaration: [{ prefix: 'android', uri: ANDROID_NAMESPACE }],
    name: 'manifest',
    attribute,
    child: [application],
  });
  return Buffer.from(toBinary(XmlNodeSchema, create(XmlNodeSchema, { node: { case: 'element', value: manifest } })));
}

/** bundleConfig encodes a BundleConfig.pb naming the bundletool version. */
export function bundleConfig(version = '1.17.2'): Buffer {
  return Buffer.from(toBinary(BundleConfigSchema, create(BundleConfigSchema, { bundletool: create(BundletoolSchema, { version }) })));
}

/** binaryManifest encodes a minimal AndroidManifest.xml in Android's binary XML (what an APK carries). */
export function binaryManifest(app: AppIdentity): Buffer {
  const strings = ['manifest', 'package', 'versionCode', 'versionName', 'android', ANDROID_NAMESPACE, app.packageName, app.versionName ?? ''];
  const encoded = strings.map((text) => {
    const body = Buffer.from(text, 'utf16le');
    const out = Buffer.alloc(2 + body.length + 2);
    out.writeUInt16LE(text.length, 0);
    body.copy(out, 2);
    return out;
  });
  const offsets = Buffer.alloc(strings.length * 4);
  let offset = 0;
  encoded.forEach((entry, i) => {
    offsets.writeUInt32LE(offset, i * 4);
    offset += entry.length;
  });
  let data = Buffer.concat(encoded);
  data = Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4)]);
  const poolHeader = Buffer.alloc(28);
  poolHeader.writeUInt16LE(0x0001, 0);
  poolHeader.writeUInt16LE(28, 2);
  poolHeader.writeUInt32LE(28 + offsets.length + data.length, 4);
  poolHeader.writeUInt32LE(strings.length, 8);
  poolHeader.writeUInt32LE(0, 12);
  poolHeader.writeUInt32LE(0, 16); // UTF-16
  poolHeader.writeUInt32LE(28 + offsets.length, 20);
  const pool = Buffer.concat([poolHeader, offsets, data]);
  const none = 0xffffffff;
  const attributes: Buffer[] = [];
  const attribute = (ns: number, name: number, raw: number, type: number, value: number): void => {
    const a = Buffer.alloc(20);
    a.writeUInt32LE(ns, 0);
    a.writeUInt32LE(name, 4);
    a.writeUInt32LE(raw, 8);
    a.writeUInt16LE(8, 12);
    a[14] = 0;
    a[15] = type;
    a.writeUInt32LE(value >>> 0, 16);
    attributes.push(a);
  };
  attribute(none, 1, 6, 0x03, 6);
  if (app.versionCode !== undefined) attribute(5, 2, none, 0x10, app.versionCode);
  if (app.versionName !== undefined) attribute(5, 3, 7, 0x03, 7);
  const element = Buffer.alloc(16 + 20);
  element.writeUInt16LE(0x0102, 0);
  element.writeUInt16LE(16, 2);
  element.writeUInt32LE(element.length + attributes.length * 20, 4);
  element.writeUInt32LE(1, 8);
  element.writeUInt32LE(none, 12);
  element.writeUInt32LE(none, 16); // ns
  element.writeUInt32LE(0, 20); // name: manifest
  element.writeUInt16LE(20, 24); // attributeStart
  element.writeUInt16LE(20, 26); // attributeSize
  element.writeUInt16LE(attributes.length, 28);
  const body = Buffer.concat([pool, element, ...attributes]);
  const header = Buffer.alloc(8);
  header.writeUInt16LE(0x0003, 0);
  header.writeUInt16LE(8, 2);
  header.writeUInt32LE(8 + body.length, 4);
  return Buffer.concat([header, body]);
}

/** bundleItems are the entries of a minimal bundle for `app`. */
export function bundleItems(app: AppIdentity): ZipItem[] {
  return [
    { name: 'BundleConfig.pb', data: bundleConfig() },
    { name: 'base/manifest/AndroidManifest.xml', data: protoManifest(app) },
    { name: 'base/dex/classes.dex', data: Buffer.from('dex\n035\0fogbank test classes') },
    { name: 'base/resources.pb', data: Buffer.alloc(64, 7) },
  ];
}

/** apkItems are the entries of a minimal APK for `app`. */
export function apkItems(app: AppIdentity): ZipItem[] {
  return [
    { name: 'AndroidManifest.xml', data: binaryManifest(app) },
    { name: 'classes.dex', data: Buffer.from('dex\n035\0fogbank test classes') },
    { name: 'resources.arsc', data: Buffer.alloc(64, 3) },
  ];
}

/**
 * jarSign adds jarsigner's v1 signature for in-memory items: MANIFEST.MF with each entry's
 * SHA-256, CERT.SF with the digests of the manifest and its sections, and CERT.RSA, a detached
 * PKCS#7 SignedData over CERT.SF (node-forge).
 */
export function jarSign(items: readonly ZipItem[], signer: TestSigner): ZipItem[] {
  const digest = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('base64');
  const main = 'Manifest-Version: 1.0\r\nCreated-By: fogbank tests\r\n\r\n';
  const sections = items.map((item) => {
    if (!('data' in item)) throw new Error(`jarSign needs in-memory data for ${item.name}`);
    return `Name: ${item.name}\r\nSHA-256-Digest: ${digest(item.data)}\r\n\r\n`;
  });
  const manifest = main + sections.join('');
  const sf =
    `Signature-Version: 1.0\r\nSHA-256-Digest-Manifest: ${digest(manifest)}\r\nCreated-By: fogbank tests\r\n\r\n` +
    items.map((item, i) => `Name: ${item.name}\r\nSHA-256-Digest: ${digest(sections[i]!)}\r\n\r\n`).join('');
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(sf, 'utf8');
  const certificate = forge.pki.certificateFromPem(signer.certificatePem);
  p7.addCertificate(certificate);
  p7.addSigner({
    key: forge.pki.privateKeyFromPem(signer.privateKeyPem),
    certificate,
    digestAlgorithm: forge.pki.oids['sha256']!,
    authenticatedAttributes: [],
  });
  p7.sign({ detached: true });
  const block = Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
  return [
    { name: 'META-INF/MANIFEST.MF', data: Buffer.from(manifest) },
    ...items,
    { name: 'META-INF/CERT.SF', data: Buffer.from(sf) },
    { name: 'META-INF/CERT.RSA', data: block },
  ];
}

/**
 * v2Sign inserts an APK Signature Scheme v2 signing block (one signer, RSASSA-PKCS1-v1_5 with
 * SHA-256, algorithm 0x0103) into a ZIP held in memory, with the real chunked content digest over
 * the entries, the central directory and the end record, as apksigner writes it.
 */
export function v2Sign(zip: Buffer, signer: TestSigner): Buffer {
  const eocdAt = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cdAt = zip.readUInt32LE(eocdAt + 16);
  const u32 = (value: number): Buffer => {
    const out = Buffer.alloc(4);
    out.writeUInt32LE(value);
    return out;
  };
  const u64 = (value: number): Buffer => {
    const out = Buffer.alloc(8);
    out.writeBigUInt64LE(BigInt(value));
    return out;
  };
  const lp = (...parts: Buffer[]): Buffer => {
    const body = Buffer.concat(parts);
    return Buffer.concat([u32(body.length), body]);
  };
  const chunkDigests: Buffer[] = [];
  for (const section of [zip.subarray(0, cdAt), zip.subarray(cdAt, eocdAt), zip.subarray(eocdAt)]) {
    for (let at = 0; at < section.length; at += 1024 * 1024) {
      const chunk = section.subarray(at, at + 1024 * 1024);
      chunkDigests.push(
        createHash('sha256')
          .update(Buffer.from([0xa5]))
          .update(u32(chunk.length))
          .update(chunk)
          .digest(),
      );
    }
  }
  const contentDigest = createHash('sha256')
    .update(Buffer.from([0x5a]))
    .update(u32(chunkDigests.length))
    .update(Buffer.concat(chunkDigests))
    .digest();
  const signedData = Buffer.concat([lp(lp(u32(0x0103), lp(contentDigest))), lp(lp(signer.certificateDer)), lp()]);
  const signature = sign('sha256', signedData, createPrivateKey(signer.privateKeyPem));
  const publicKey = new X509Certificate(signer.certificateDer).publicKey.export({ type: 'spki', format: 'der' });
  const value = lp(lp(lp(signedData), lp(lp(u32(0x0103), lp(signature))), lp(publicKey)));
  const pair = Buffer.concat([u64(4 + value.length), u32(0x7109871a), value]);
  const size = pair.length + 8 + 16;
  const block = Buffer.concat([u64(size), pair, u64(size), Buffer.from('APK Sig Block 42', 'ascii')]);
  const eocd = Buffer.from(zip.subarray(eocdAt));
  eocd.writeUInt32LE(cdAt + block.length, 16);
  return Buffer.concat([zip.subarray(0, cdAt), block, zip.subarray(cdAt, eocdAt), eocd]);
}

/** writeZip writes items to a ZIP file with yazl (deflated unless `compress: false`; streams are stored). */
export async function writeZip(path: string, items: readonly ZipItem[]): Promise<void> {
  const zip = new yazl.ZipFile();
  const fixed = { mtime: new Date(Date.UTC(2025, 0, 1)), mode: 0o100644 };
  for (const item of items) {
    if ('data' in item) zip.addBuffer(item.data, item.name, { ...fixed, compress: item.compress ?? true });
    else zip.addReadStream(item.stream(), item.name, { ...fixed, compress: false, size: item.size });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** zipBuffer builds a ZIP in memory (small test archives only). */
export async function zipBuffer(items: readonly ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const item of items) {
    if ('data' in item) zip.addBuffer(item.data, item.name, { mtime: new Date(Date.UTC(2025, 0, 1)), compress: item.compress ?? true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Compression is how a test archive keeps its entries: all deflated, all stored (zip's choice for tiny files, Python's zipfile default), or mixed as build tools mix them. */
export type Compression = 'deflated' | 'stored' | 'mixed';

/** COMPRESSIONS lists every Compression, for tests that run each. */
export const COMPRESSIONS: readonly Compression[] = ['deflated', 'stored', 'mixed'];

/** compressedAs sets how each in-memory item is kept: `mixed` stores every other entry, starting with the first. */
export function compressedAs(items: readonly ZipItem[], compression: Compression): ZipItem[] {
  return items.map((item, i) => ('data' in item ? { ...item, compress: compression === 'deflated' || (compression === 'mixed' && i % 2 === 1) } : item));
}

/** EntryHeaderPatch is what patchEntry may rewrite in an entry's headers. */
export interface EntryHeaderPatch {
  readonly method?: number;
  readonly flags?: number;
  readonly crc32?: number;
  readonly compressedSize?: number;
  readonly uncompressedSize?: number;
  /** The local header's signature (a broken local header). */
  readonly localSignature?: number;
}

/**
 * patchEntry rewrites fields of the headers of entry `name` in a ZIP held in memory — the central
 * directory record and the local header alike (the signature only in the local one) — to forge
 * archives no writer would make.
 */
export function patchEntry(zip: Buffer, name: string, patch: EntryHeaderPatch): Buffer {
  const out = Buffer.from(zip);
  let found = false;
  for (let at = out.indexOf('PK\x01\x02'); at !== -1; at = out.indexOf('PK\x01\x02', at + 4)) {
    if (out.toString('utf8', at + 46, at + 46 + out.readUInt16LE(at + 28)) !== name) continue;
    found = true;
    const local = out.readUInt32LE(at + 42);
    // Central record field offsets are the local header's plus 2 (the "version made by" field).
    for (const base of [local, at + 2]) {
      if (patch.flags !== undefined) out.writeUInt16LE(patch.flags, base + 6);
      if (patch.method !== undefined) out.writeUInt16LE(patch.method, base + 8);
      if (patch.crc32 !== undefined) out.writeUInt32LE(patch.crc32 >>> 0, base + 14);
      if (patch.compressedSize !== undefined) out.writeUInt32LE(patch.compressedSize, base + 18);
      if (patch.uncompressedSize !== undefined) out.writeUInt32LE(patch.uncompressedSize, base + 22);
    }
    if (patch.localSignature !== undefined) out.writeUInt32LE(patch.localSignature >>> 0, local);
  }
  if (!found) throw new Error(`no entry ${name} in the archive`);
  return out;
}

/** zeros streams `size` zero bytes without holding them. */
export function zeros(size: number, chunk = 1024 * 1024): Readable {
  const block = Buffer.alloc(chunk);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const n = Math.min(left, chunk);
      left -= n;
      this.push(n === chunk ? block : block.subarray(0, n));
    },
  });
}
