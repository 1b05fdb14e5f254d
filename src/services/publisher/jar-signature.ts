/**
 * The JAR signature of an uploaded bundle or APK (v1 scheme, what jarsigner writes and what an
 * .aab carries): META-INF/<NAME>.SF holds digests of MANIFEST.MF, and META-INF/<NAME>.RSA|DSA|EC
 * is a PKCS#7/CMS SignedData over the .SF, carrying the signing certificate. The CMS structure is
 * parsed and its signature checked against the .SF with pkijs; the signer's certificate (DER)
 * is what certificateFingerprint is computed from.
 */

import { createHash } from 'node:crypto';
import type { Certificate, SignedData } from 'pkijs';
import { commonJs } from '../../core/lazy.ts';
import { invalidUpload } from './errors.ts';
import type { ZipArchive } from './zip-archive.ts';

/** MAX_SIGNATURE_ENTRY_BYTES bounds each inflated signature file (real ones are a few KiB to a few MiB for huge .SF files). */
const MAX_SIGNATURE_ENTRY_BYTES = 64 * 1024 * 1024;

const SIGNATURE_BLOCK = /^META-INF\/([^/]+)\.(RSA|DSA|EC)$/i;

/**
 * signingCertificate returns the DER of the certificate that signed the archive's JAR signature,
 * or undefined when the archive carries none. A signature block that does not parse, lacks its
 * .SF, or does not verify is a 400 (`what` names the upload: "bundle", "APK").
 */
export async function signingCertificate(archive: ZipArchive, what: string): Promise<Buffer | undefined> {
  const block = [...archive.entries.keys()].filter((name) => SIGNATURE_BLOCK.test(name)).sort()[0];
  if (block === undefined) return undefined;
  const signatureFile = block.replace(/\.(RSA|DSA|EC)$/i, '.SF');
  const sfName = [...archive.entries.keys()].find((name) => name.toUpperCase() === signatureFile.toUpperCase());
  if (sfName === undefined) throw invalidUpload(`The ${what}'s JAR signature block ${block} has no signature file ${signatureFile}.`);
  const blockBytes = await archive.read(block, MAX_SIGNATURE_ENTRY_BYTES, what);
  const sfBytes = await archive.read(sfName, MAX_SIGNATURE_ENTRY_BYTES, what);
  // The CMS library loads on first use (start-up time).
  const pkijs = commonJs(await import('pkijs'));
  const signed = parseSignedData(pkijs, blockBytes, block, what);
  let signer: Certificate | null | undefined;
  try {
    const result = await signed.verify({ signer: 0, data: toArrayBuffer(sfBytes), checkChain: false, extendedMode: true });
    if (result.signatureVerified !== true) throw new Error(result.message || 'the signature does not match the signature file');
    signer = result.signerCertificate;
  } catch (error) {
    const why = error instanceof Error ? error.message : String((error as { message?: unknown }).message ?? error);
    throw invalidUpload(`The ${what}'s JAR signature ${block} does not verify against ${sfName}: ${why.replace(/\.$/, '')}.`);
  }
  if (!(signer instanceof pkijs.Certificate)) throw invalidUpload(`The ${what}'s JAR signature ${block} does not carry the signer's certificate.`);
  return Buffer.from(signer.toSchema().toBER(false));
}

function parseSignedData({ ContentInfo, SignedData }: typeof import('pkijs'), bytes: Buffer, block: string, what: string): SignedData {
  try {
    const info = ContentInfo.fromBER(toArrayBuffer(bytes));
    if (info.contentType !== ContentInfo.SIGNED_DATA) throw new Error(`content type ${info.contentType} is not signedData`);
    return new SignedData({ schema: info.content });
  } catch (error) {
    throw invalidUpload(`The ${what}'s JAR signature block ${block} is not a PKCS#7 SignedData: ${(error as Error).message.replace(/\.$/, '')}.`);
  }
}

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** certificateFingerprint is the SHA-256 of a certificate's DER in the colon-separated uppercase form (`AB:CD:…`), as keytool and openssl print it. */
export function certificateFingerprint(der: Uint8Array): string {
  return createHash('sha256')
    .update(der)
    .digest('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:');
}
