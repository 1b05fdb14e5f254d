/**
 * The APK Signature Scheme v2/v3 signing block (source.android.com/docs/security/features/apksigning/v2):
 * a block between the last ZIP entry and the central directory, ending in the magic
 * `APK Sig Block 42`, holding ID-value pairs; v3 (0xf05368c0) and v2 (0x7109871a) values list
 * signers, each with signed data (digests, then DER certificates), signatures over that signed
 * data, and the public key. APKs built for minSdk 24+ often carry only this scheme, no JAR
 * signature. fogbank reads the first signer's certificate and checks the signer's signature over
 * its signed data with that key; it does not recompute the chunked content digests (that would
 * re-read the whole APK), so it answers "who signed" rather than "is every byte intact".
 */

import { constants, verify, X509Certificate } from 'node:crypto';
import { open } from 'node:fs/promises';
import { invalidUpload } from './errors.ts';

const MAGIC = Buffer.from('APK Sig Block 42', 'ascii');
const V3_ID = 0xf05368c0;
const V2_ID = 0x7109871a;
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

/** SIGNATURE_ALGORITHMS maps the scheme's algorithm ids to node:crypto verify settings. */
const SIGNATURE_ALGORITHMS: ReadonlyMap<number, { readonly hash: string; readonly pss?: boolean }> = new Map([
  [0x0101, { hash: 'sha256', pss: true }],
  [0x0102, { hash: 'sha512', pss: true }],
  [0x0103, { hash: 'sha256' }],
  [0x0104, { hash: 'sha512' }],
  [0x0201, { hash: 'sha256' }],
  [0x0202, { hash: 'sha512' }],
  [0x0301, { hash: 'sha256' }],
  [0x0421, { hash: 'sha256' }],
  [0x0423, { hash: 'sha256' }],
  [0x0425, { hash: 'sha256' }],
]);

/**
 * signingBlockCertificate returns the DER of the first v3 (else v2) signer's certificate of the APK
 * at `path` whose central directory starts at `centralDirectoryOffset`, or undefined when the APK
 * has no signing block. A malformed block or a signature that does not verify is a 400.
 */
export async function signingBlockCertificate(path: string, centralDirectoryOffset: number): Promise<Buffer | undefined> {
  if (centralDirectoryOffset < 32) return undefined;
  const handle = await open(path, 'r');
  try {
    const footer = Buffer.alloc(24);
    await handle.read(footer, 0, 24, centralDirectoryOffset - 24);
    if (!footer.subarray(8).equals(MAGIC)) return undefined;
    const size = Number(footer.readBigUInt64LE(0));
    const start = centralDirectoryOffset - size - 8;
    if (size < 24 || size > MAX_BLOCK_BYTES || start < 0) throw bad('its size is out of range');
    const block = Buffer.alloc(size + 8);
    await handle.read(block, 0, block.length, start);
    if (Number(block.readBigUInt64LE(0)) !== size) throw bad('its two size fields differ');
    const pairs = readPairs(block.subarray(8, block.length - 24));
    const v3 = pairs.get(V3_ID);
    if (v3 !== undefined) return firstSigner(v3, 'v3');
    const v2 = pairs.get(V2_ID);
    return v2 === undefined ? undefined : firstSigner(v2, 'v2');
  } finally {
    await handle.close();
  }
}

function bad(why: string): Error {
  return invalidUpload(`The APK's signing block (APK Signature Scheme v2/v3) is malformed: ${why}.`);
}

function readPairs(region: Buffer): Map<number, Buffer> {
  const pairs = new Map<number, Buffer>();
  for (let at = 0; at < region.length; ) {
    if (at + 12 > region.length) throw bad('a pair is truncated');
    const length = Number(region.readBigUInt64LE(at));
    if (length < 4 || at + 8 + length > region.length) throw bad('a pair runs past the block');
    pairs.set(region.readUInt32LE(at + 8), region.subarray(at + 12, at + 8 + length));
    at += 8 + length;
  }
  return pairs;
}

/** LengthPrefixed walks a sequence of uint32-length-prefixed values. */
class LengthPrefixed {
  #at = 0;
  constructor(private readonly bytes: Buffer) {}

  get done(): boolean {
    return this.#at >= this.bytes.length;
  }

  next(): Buffer {
    if (this.#at + 4 > this.bytes.length) throw bad('a length prefix is truncated');
    const length = this.bytes.readUInt32LE(this.#at);
    const from = this.#at + 4;
    if (from + length > this.bytes.length) throw bad('a length-prefixed value runs past its container');
    this.#at = from + length;
    return this.bytes.subarray(from, from + length);
  }

  uint32(): number {
    if (this.#at + 4 > this.bytes.length) throw bad('a number is truncated');
    const value = this.bytes.readUInt32LE(this.#at);
    this.#at += 4;
    return value;
  }
}

function firstSigner(value: Buffer, scheme: 'v2' | 'v3'): Buffer {
  const signers = new LengthPrefixed(new LengthPrefixed(value).next());
  if (signers.done) throw bad(`the ${scheme} value lists no signer`);
  const signer = new LengthPrefixed(signers.next());
  const signedData = signer.next();
  if (scheme === 'v3') {
    signer.uint32(); // minSdk
    signer.uint32(); // maxSdk
  }
  const signatures = new LengthPrefixed(signer.next());
  const publicKey = signer.next();
  const data = new LengthPrefixed(signedData);
  data.next(); // digests
  const certificates = new LengthPrefixed(data.next());
  if (certificates.done) throw bad(`the ${scheme} signer has no certificate`);
  const certificate = certificates.next();
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(certificate);
  } catch (error) {
    throw bad(`the ${scheme} signer's certificate does not parse (${(error as Error).message})`);
  }
  if (!parsed.publicKey.export({ type: 'spki', format: 'der' }).equals(publicKey)) throw bad(`the ${scheme} signer's public key is not its certificate's`);
  let verified = false;
  while (!signatures.done && !verified) {
    const entry = new LengthPrefixed(signatures.next());
    const algorithm = SIGNATURE_ALGORITHMS.get(entry.uint32());
    const signature = entry.next();
    if (algorithm === undefined) continue;
    const key =
      algorithm.pss === true
        ? { key: parsed.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: algorithm.hash === 'sha256' ? 32 : 64 }
        : parsed.publicKey;
    verified = verify(algorithm.hash, signedData, key, signature);
    if (!verified) throw invalidUpload(`The APK's ${scheme} signature does not verify with its signer's certificate.`);
  }
  if (!verified) throw bad(`the ${scheme} signer has no signature in a supported algorithm`);
  return Buffer.from(certificate);
}
