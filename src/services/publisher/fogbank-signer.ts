/**
 * fogbank's own signing identity. Play re-signs what internal app sharing hands out with a key
 * of its own, so an unsigned upload still gets a certificateFingerprint: fogbank's, a self-signed
 * RSA certificate (made in memory by the warm-up, else on first need) kept in the store on first
 * need, so the fingerprint stays the same across restarts and is the same on every replica
 * sharing the store. A copy of the certificate (and its key) is written to
 * `<data-dir>/publisher/` for `openssl`; a data directory from before the identity moved into
 * the store has its identity taken over from those files.
 */

import { KeyObject, X509Certificate, type webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.ts';
import { commonJs, loadOnFirstUse } from '../../core/lazy.ts';
import type { IdSource } from '../../lib/ids.ts';
import { ConflictError, type Store } from '../../store/index.ts';

const CERTIFICATE_FILE = 'signing-certificate.pem';
const KEY_FILE = 'signing-key.pem';
const COMMON_NAME = 'fogbank internal app sharing';
const VALIDITY_MS = 25 * 365 * 24 * 3600 * 1000;
/** SIGNING_IDENTITY_KIND keeps the one identity (key `fogbank`) in the store. */
export const SIGNING_IDENTITY_KIND = 'publisher.signingIdentity';
const IDENTITY_KEY = 'fogbank';

/** SigningIdentity is the certificate and its private key, both PEM. */
interface SigningIdentity {
  readonly certificate: string;
  readonly key: string;
}

/** FogbankSigner hands out fogbank's signing certificate, creating it once per store. */
export class FogbankSigner {
  /** certificate returns the DER of the signing certificate, reading or creating it on first use (a failed attempt is tried again). */
  readonly certificate = loadOnFirstUse(() => this.#loadOrCreate());
  /**
   * An identity made ahead of need (prepare), kept in memory only: the first upload of a store
   * without one records it rather than waiting for an RSA key and the X.509 libraries. Unused
   * when the store or the data directory turns out to have an identity by then.
   */
  #prepared: Promise<SigningIdentity | undefined> | undefined;

  constructor(
    private readonly store: Store,
    /** Where the openssl-readable copy goes (and a pre-store identity is found). */
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    /** makeKeys makes an identity's key pair (RSA 2048). */
    private readonly makeKeys: () => Promise<webcrypto.CryptoKeyPair> = makeRsaKeys,
  ) {}

  /**
   * prepare makes, without writing anything, what the first upload of a store that has no
   * identity would otherwise wait for: the key pair and its certificate (the background warm-up
   * calls it; it loads the X.509 libraries, 2-4 MB of idle RSS). A store or data directory
   * that has an identity makes nothing. Never rejects: a failure here is the first upload's to
   * meet and report.
   */
  async prepare(): Promise<void> {
    this.#prepared ??= (async () => {
      if ((await this.store.get(SIGNING_IDENTITY_KIND, IDENTITY_KEY)) !== undefined || (await this.#fromFiles()) !== undefined) return undefined;
      return this.#newIdentity();
    })().catch(() => undefined);
    await this.#prepared;
  }

  async #loadOrCreate(): Promise<Buffer> {
    const identity =
      (await this.store.get<SigningIdentity>(SIGNING_IDENTITY_KIND, IDENTITY_KEY))?.value ??
      (await this.#keep((await this.#fromFiles()) ?? (await this.#create())));
    await this.#copyToFiles(identity);
    return new X509Certificate(identity.certificate).raw;
  }

  /** #keep records an identity unless another replica recorded one first, whose identity then wins. */
  async #keep(identity: SigningIdentity): Promise<SigningIdentity> {
    try {
      await this.store.transact((tx) => tx.put(SIGNING_IDENTITY_KIND, IDENTITY_KEY, identity, { expectRevision: 0 }));
      return identity;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const kept = await this.store.get<SigningIdentity>(SIGNING_IDENTITY_KIND, IDENTITY_KEY);
      if (kept === undefined) throw error;
      return kept.value;
    }
  }

  async #fromFiles(): Promise<SigningIdentity | undefined> {
    try {
      return { certificate: await readFile(join(this.dir, CERTIFICATE_FILE), 'utf8'), key: await readFile(join(this.dir, KEY_FILE), 'utf8') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** #create hands out the prepared identity (once) or makes one. */
  async #create(): Promise<SigningIdentity> {
    const prepared = await this.#prepared;
    this.#prepared = Promise.resolve(undefined);
    return prepared ?? this.#newIdentity();
  }

  async #newIdentity(): Promise<SigningIdentity> {
    const { der, privateKey } = await createSelfSigned(await this.makeKeys(), this.clock.now(), this.ids.bytes(16));
    return { certificate: new X509Certificate(der).toString(), key: KeyObject.from(privateKey).export({ type: 'pkcs8', format: 'pem' }).toString() };
  }

  async #copyToFiles(identity: SigningIdentity): Promise<void> {
    const current = await readFile(join(this.dir, CERTIFICATE_FILE), 'utf8').catch(() => undefined);
    if (current === identity.certificate) return;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(join(this.dir, KEY_FILE), identity.key, { mode: 0o600 });
    await writeFile(join(this.dir, CERTIFICATE_FILE), identity.certificate, { mode: 0o644 });
  }
}

/** makeRsaKeys makes an RSA 2048 signing key pair (on the thread pool: the event loop goes on meanwhile). */
export function makeRsaKeys(): Promise<webcrypto.CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
}

async function createSelfSigned(keys: webcrypto.CryptoKeyPair, now: number, serial: Buffer): Promise<{ der: Buffer; privateKey: webcrypto.CryptoKey }> {
  // The X.509 libraries load on first use: most starts never make a certificate (start-up time).
  const [asn1js, pkijs] = await Promise.all([import('asn1js'), import('pkijs')]);
  const { Integer, Utf8String } = commonJs(asn1js);
  const { AttributeTypeAndValue, Certificate } = commonJs(pkijs);
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
