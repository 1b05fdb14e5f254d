/**
 * The certificates fogbank serves HTTPS with: the user's own (`--tls-cert`, `--tls-key`,
 * `--tls-ca`), or fogbank's CA with a serving certificate and an admin client certificate it
 * signed. Generated ones are made on the first start and kept in `<data-dir>/tls/` (keys 0600),
 * so later starts read files (no X.509 library loads); replicas sharing PostgreSQL keep the CA in
 * the store as well, so each signs its own serving certificate with the one CA every kubeconfig
 * trusts. The serving certificate is made again when the names it must cover change (another
 * `--host`) or it is about to expire; without a data directory everything is made in memory, once
 * per process.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import type { IdSource } from '../../lib/ids.ts';
import { ConflictError } from '../../store/index.ts';
import type { Store } from '../../store/store.ts';
import type { CertificateAndKey, IssueSettings } from './certificates.ts';

/** TlsFiles are certificates brought by the user, PEM text: the serving certificate (chain) and key, and the CA client certificates must chain to. */
export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  /** The CA client certificates are verified against, also what the kubeconfig trusts; without it no client certificate authenticates, and clients trust `cert`. */
  readonly ca?: string;
}

/** TlsSetting is start()'s `tls`: true (default) for fogbank's own certificates, false for plain HTTP only, or the user's own. */
export type TlsSetting = boolean | TlsFiles;

/** TlsMaterial is what HTTPS is served with and what clients are told to trust. */
export interface TlsMaterial {
  readonly serving: CertificateAndKey;
  /** PEM certificates a client should trust (the kubeconfig's certificate-authority-data). */
  readonly trust: string;
  /** PEM CA certificates that client certificates are verified against; undefined: none is accepted. */
  readonly clientCa: string | undefined;
  /** A client certificate for the admin (CN kubernetes-admin, O system:masters), when fogbank's own CA signs. */
  readonly admin: CertificateAndKey | undefined;
  /** fogbank's own CA, when it made the certificates (kept again in a shared store after a reset). */
  readonly ca: CertificateAndKey | undefined;
}

/** TLS_DIR is the folder of the data directory the generated certificates are kept in. */
export const TLS_DIR = 'tls';

/** TLS_CA_KIND keeps the CA in a store shared by replicas (key `ca`). */
export const TLS_CA_KIND = 'fogbank.tlsCa';
const CA_KEY = 'ca';

/** ADMIN_SUBJECT is the admin's client certificate subject: kubeadm's admin user, in the group the apiserver lets do anything. */
export const ADMIN_SUBJECT = { commonName: 'kubernetes-admin', organizations: ['system:masters'] } as const;

/** RENEW_BEFORE_MS: a generated leaf certificate with less than a day left is made again at start. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

/** MaterialSite is what resolving the certificates needs. */
export interface MaterialSite {
  readonly host: string;
  readonly dataDir: string | undefined;
  readonly store: Store;
  /** The time certificates are checked and issued at (the server's clock). */
  readonly now: number;
  readonly ids: IdSource;
}

/** tlsHosts are the names the serving certificate covers: loopback in every spelling and the configured host (the machine's name too when listening on every address). */
export function tlsHosts(host: string): string[] {
  const hosts = ['127.0.0.1', '::1', 'localhost'];
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const extra = wildcard ? [hostname()] : [ipaddr.isValid(host) ? ipaddr.parse(host).toString() : host.toLowerCase()];
  for (const name of extra) if (!hosts.includes(name)) hosts.push(name);
  return hosts;
}

/** TlsFilesError says why certificates the user brought cannot be served. */
export class TlsFilesError extends Error {
  override readonly name = 'TlsFilesError';
}

/** fromFiles is the material of certificates the user brought, checked now so a mistake fails the start, not the first handshake. */
export function fromFiles(files: TlsFiles): TlsMaterial {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(files.cert);
  } catch {
    throw new TlsFilesError('the TLS certificate (--tls-cert) is not a PEM certificate');
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(files.key));
  } catch {
    throw new TlsFilesError('the TLS key (--tls-key) is not a PEM private key');
  }
  if (!matches) throw new TlsFilesError('the TLS key (--tls-key) is not the key of the certificate (--tls-cert)');
  if (files.ca !== undefined) {
    try {
      new X509Certificate(files.ca);
    } catch {
      throw new TlsFilesError('the TLS CA (--tls-ca) is not a PEM certificate');
    }
  }
  return { serving: { certificate: files.cert, key: files.key }, trust: files.ca ?? files.cert, clientCa: files.ca, admin: undefined, ca: undefined };
}

// Made without a data directory: once per process (tests start many servers), keyed by what they depend on.
const madeInMemory = new Map<string, Promise<CertificateAndKey>>();

/** generatedMaterial finds or makes fogbank's CA, serving and admin certificates (see the file comment). */
export async function generatedMaterial(site: MaterialSite): Promise<TlsMaterial> {
  const dir = site.dataDir === undefined ? undefined : join(site.dataDir, TLS_DIR);
  const settings = (): IssueSettings => ({ now: site.now, serial: site.ids.bytes(16) });
  const certificates = () => import('./certificates.ts');

  let ca = (site.store.leases.shared ? (await site.store.get<CertificateAndKey>(TLS_CA_KIND, CA_KEY))?.value : undefined) ?? readPair(dir, 'ca');
  if (ca === undefined || !usable(ca, undefined, site.now, 0)) {
    // A memory store keeps nothing across starts: its servers share one CA per process (tests start many).
    const make = async () => (await certificates()).issueCa(settings());
    ca = await (site.store.backend === 'memory' ? once('ca', (kept) => usable(kept, undefined, site.now, 0), make) : make());
  }
  if (site.store.leases.shared) ca = await keepShared(site.store, ca);
  const hosts = tlsHosts(site.host);
  const issuer = ca;
  // The serving and the admin certificate are made side by side (each key pair is generated off the main thread).
  const [serving, admin] = await Promise.all([
    keptOr(
      readPair(dir, 'serving'),
      (kept) => usable(kept, issuer, site.now, RENEW_BEFORE_MS) && covers(kept, hosts),
      `serving ${issuer.certificate} ${hosts.join(' ')}`,
      async () => (await certificates()).issueServing(issuer, hosts, settings()),
    ),
    keptOr(
      readPair(dir, 'admin'),
      (kept) => usable(kept, issuer, site.now, RENEW_BEFORE_MS),
      `admin ${issuer.certificate}`,
      async () => (await certificates()).issueClient(issuer, ADMIN_SUBJECT, settings()),
    ),
  ]);
  if (dir !== undefined) {
    writePair(dir, 'ca', ca);
    writePair(dir, 'serving', serving);
    writePair(dir, 'admin', admin);
  }
  return { serving, trust: ca.certificate, clientCa: ca.certificate, admin, ca };
}

/** keptOr is the kept pair when it fits, else one made (shared in this process while it fits, see once). */
function keptOr(
  kept: CertificateAndKey | undefined,
  fits: (pair: CertificateAndKey) => boolean,
  key: string,
  make: () => Promise<CertificateAndKey>,
): Promise<CertificateAndKey> {
  return kept !== undefined && fits(kept) ? Promise.resolve(kept) : once(key, fits, make);
}

/** once shares what is made among the servers of this process while it still fits (valid long enough): tests start many. */
async function once(key: string, fits: (pair: CertificateAndKey) => boolean, make: () => Promise<CertificateAndKey>): Promise<CertificateAndKey> {
  const made = madeInMemory.get(key);
  const kept = made === undefined ? undefined : await made.catch(() => undefined);
  if (kept !== undefined && fits(kept)) return kept;
  const making = make();
  madeInMemory.set(key, making);
  making.catch(() => madeInMemory.delete(key));
  return making;
}

/** keepShared records the CA for the other replicas, unless one recorded its own first: that one wins. */
async function keepShared(store: Store, ca: CertificateAndKey): Promise<CertificateAndKey> {
  const kept = await store.get<CertificateAndKey>(TLS_CA_KIND, CA_KEY);
  if (kept !== undefined) return kept.value;
  try {
    await store.transact((tx) => tx.put(TLS_CA_KIND, CA_KEY, ca, { expectRevision: 0 }));
    return ca;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const winner = await store.get<CertificateAndKey>(TLS_CA_KIND, CA_KEY);
    if (winner === undefined) throw error;
    return winner.value;
  }
}

/** keepSharedCa puts the CA back after the store's state was replaced (a reset or restore would otherwise leave the next replica to make another). */
export async function keepSharedCa(store: Store, material: TlsMaterial | undefined): Promise<void> {
  const ca = material?.ca;
  if (ca === undefined || !store.leases.shared) return;
  await store.transact((tx) => tx.put(TLS_CA_KIND, CA_KEY, ca));
}

// Each PEM is parsed once per process (a start checks the CA against three certificates).
const parsed = new Map<string, X509Certificate>();
function parse(pem: string): X509Certificate {
  let certificate = parsed.get(pem);
  if (certificate === undefined) {
    certificate = new X509Certificate(pem);
    if (parsed.size > 64) parsed.clear();
    parsed.set(pem, certificate);
  }
  return certificate;
}

/** usable: the pair parses, is signed by `issuer` (itself for a CA), holds its key and is valid `margin` past `now`. */
function usable(pair: CertificateAndKey, issuer: CertificateAndKey | undefined, now: number, margin: number): boolean {
  try {
    const certificate = parse(pair.certificate);
    const signer = issuer === undefined ? certificate : parse(issuer.certificate);
    if (!certificate.checkIssued(signer) || !certificate.verify(signer.publicKey)) return false;
    if (!certificate.checkPrivateKey(createPrivateKey(pair.key))) return false;
    return Date.parse(certificate.validFrom) <= now && Date.parse(certificate.validTo) > now + margin;
  } catch {
    return false;
  }
}

/** covers: the serving certificate names every host (IP addresses as IP SANs, others as DNS names). */
function covers(pair: CertificateAndKey, hosts: readonly string[]): boolean {
  const certificate = parse(pair.certificate);
  return hosts.every((host) => (ipaddr.isValid(host) ? certificate.checkIP(host) : certificate.checkHost(host, { wildcards: false })) !== undefined);
}

/** readPair reads `<name>.crt` and `<name>.key` from the folder, or undefined when either is missing. */
function readPair(dir: string | undefined, name: string): CertificateAndKey | undefined {
  if (dir === undefined) return undefined;
  try {
    return { certificate: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** writePair writes the pair unless the files already hold it: certificates readable by others, keys by the owner only. */
function writePair(dir: string, name: string, pair: CertificateAndKey): void {
  const current = readPair(dir, name);
  if (current?.certificate === pair.certificate && current.key === pair.key) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
  writeFileSync(join(dir, `${name}.crt`), pair.certificate, { mode: 0o644 });
}
