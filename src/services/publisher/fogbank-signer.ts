/**
 * The data directory's own signing identity. Play re-signs what internal app sharing hands out
 * with a key of its own, so an unsigned upload still gets a certificateFingerprint: fogbank's, a
 * self-signed RSA certificate made on first need and kept in the data directory, so the
 * fingerprint stays the same across restarts of the same data directory.
 */

import { KeyObject, X509Certificate, type webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.ts';
import { commonJs } from '../../core/lazy.ts';
import type { IdSource } from '../../core/ids.ts';

const CERTIFICATE_FILE = 'signing-certificate.pem';
const KEY_FILE = 'signing-key.pem';
const COMMON_NAME = 'fogbank internal app sharing';
const VALIDITY_MS = 25 * 365 * 24 * 3600 * 1000;

/** FogbankSigner hands out the data directory's signing certificate, creating it once. */
export class FogbankSigner {
  #certificate: Promise<Buffer> | undefined;

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {}

  /** certificate returns the DER of the signing certificate, reading or creating it on first use. */
  certificate(): Promise<Buffer> {
    this.#certificate ??= this.#loadOrCreate();
    this.#certificate.catch(() => (this.#certificate = undefined));
    return this.#certificate;
  }

  async #loadOrCreate(): Promise<Buffer> {
    try {
      return new X509Certificate(await readFile(join(this.dir, CERTIFICATE_FILE))).raw;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const { der, privateKey } = await createSelfSigned(this.clock.now(), this.ids.bytes(16));
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(join(this.dir, KEY_FILE), KeyObject.from(privateKey).export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    await writeFile(join(this.dir, CERTIFICATE_FILE), new X509Certificate(der).toString(), { mode: 0o644 });
    return der;
  }
}

async function createSelfSigned(now: number, serial: Buffer): Promise<{ der: Buffer; privateKey: webcrypto.CryptoKey }> {
  // The X.509 libraries load on first use: most starts never make a certificate (start-up time).
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const { Integer, Utf8String } = commonJs(asn1js);
  const { AttributeTypeAndValue, Certificate } = commonJs(pkijs);
  const { subtle } = globalThis.crypto;
  const keys = await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const certificate = new Certificate();
  certificate.version = 2;
  // A positive serial: DER integers are signed, so the top bit is cleared.
  serial[0] = serial[0]! & 0x7f;
  certificate.serialNumber = new Integer({ valueHex: serial });
  for (const name of [certificate.issuer, certificate.subject]) {
    name.typesAndValues.push(new AttributeTypeAndValue({ type: '2.5.4.3', value: new Utf8String({ value: COMMON_NAME }) }));
  }
  certificate.notBefore.value = new Date(now);
  certificate.notAfter.value = new Date(now + VALIDITY_MS);
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  await certificate.sign(keys.privateKey, 'SHA-256');
  return { der: Buffer.from(certificate.toSchema(true).toBER(false)), privateKey: keys.privateKey };
}
