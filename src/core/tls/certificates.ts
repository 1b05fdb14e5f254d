/**
 * Issuing fogbank's X.509 certificates: a CA, the serving certificate it signs (SANs for every
 * name a client may dial) and client certificates (CN = user, O = groups, as the apiserver reads
 * them). ECDSA P-256 keys made by node:crypto off the main thread (generateKeyPair), the
 * certificate written as DER here (der.ts) and signed with node:crypto: no X.509 library loads,
 * so a new data directory's certificates cost a few milliseconds of the start, which waits for
 * them (everything the ready line announces exists when it is printed).
 *
 * The extensions are the ones strict verifiers ask for (Python 3.13's VERIFY_X509_STRICT, Go's
 * crypto/x509): a critical basicConstraints and keyUsage everywhere, a subjectKeyIdentifier on
 * the CA, an authorityKeyIdentifier on what it signs, extKeyUsage serverAuth or clientAuth.
 */
import { createHash, createPrivateKey, generateKeyPair, type KeyObject, sign, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';
import { bitString, children, contextTag, integer, octetString, oid, readElement, sequence, set, time, TRUE, utf8String } from './der.ts';

/** CertificateAndKey is a certificate and its private key, both PEM (the key PKCS #8). */
export interface CertificateAndKey {
  readonly certificate: string;
  readonly key: string;
}

/** Validity of each kind of certificate, in milliseconds. */
const DAY_MS = 24 * 3600 * 1000;
/** CA_VALIDITY_MS: ten years, as kubeadm's CA. */
export const CA_VALIDITY_MS = 3650 * DAY_MS;
/** LEAF_VALIDITY_MS: one year, as kubeadm's serving and client certificates (and under the 825 days macOS allows a server certificate). */
export const LEAF_VALIDITY_MS = 365 * DAY_MS;
/** BACKDATE_MS: certificates start an hour before they are made, so a client whose clock lags a little still accepts them. */
export const BACKDATE_MS = 3600 * 1000;

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

/** KeyUsage bits (RFC 5280 4.2.1.3), numbered from the most significant bit of the first byte. */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

/** Subject is a certificate's distinguished name: one CN and any number of O values, in order. */
export interface Subject {
  readonly commonName: string;
  readonly organizations?: readonly string[];
}

/** IssueSettings is when a certificate is made (the injected clock) and its serial's random bytes. */
export interface IssueSettings {
  readonly now: number;
  /** 16 random bytes for the serial number. */
  readonly serial: Uint8Array;
}

const newKeyPair = promisify(generateKeyPair);

/** ECDSA_WITH_SHA256 is the AlgorithmIdentifier of the signature (RFC 5758 3.2: no parameters). */
const ECDSA_WITH_SHA256 = sequence(oid(OID.ecdsaWithSha256));

/** keyUsageBits encodes the named keyUsage bits as a DER BIT STRING's bytes and unused-bit count. */
function keyUsageBits(bits: readonly number[]): { bytes: Uint8Array; unused: number } {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> (bit % 8);
  // DER: the unused bits are those after the last set one.
  return { bytes, unused: 7 - (highest % 8) };
}

/** keyIdentifier is the SHA-1 of a SubjectPublicKeyInfo's key bits (RFC 5280 4.2.1.2, method 1), as Go and OpenSSL compute it. */
function keyIdentifier(spki: Uint8Array): Buffer {
  const [, key] = children(spki, readElement(spki, 0));
  if (key === undefined || key.tag !== 0x03) throw new Error('DER: a SubjectPublicKeyInfo without its key');
  // The BIT STRING's content after its unused-bits byte.
  return createHash('sha1')
    .update(spki.subarray(key.contentStart + 1, key.end))
    .digest();
}

/** subjectOf is a certificate's subject Name as it is encoded (the issuer of what it signs, byte for byte). */
function subjectOf(certificate: X509Certificate): Buffer {
  const der = certificate.raw;
  const [tbs] = children(der, readElement(der, 0));
  if (tbs === undefined) throw new Error('DER: a certificate without its TBSCertificate');
  // version [0], serialNumber, signature, issuer, validity, subject.
  const fields = children(der, tbs);
  const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[offset + 4];
  if (subject === undefined) throw new Error('DER: a TBSCertificate without its subject');
  return der.subarray(subject.start, subject.end);
}

/** extension is one Extension: its OID, critical when it is, and its value's DER in an OCTET STRING. */
function extension(id: string, value: Uint8Array, critical = false): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octetString(value));
}

/** CertificateProfile is what distinguishes the three kinds of certificate fogbank issues. */
interface CertificateProfile {
  readonly subject: Subject;
  readonly validityMs: number;
  readonly ca: boolean;
  readonly keyUsage: readonly number[];
  readonly extKeyUsage?: string;
  /** Subject alternative names: DNS names and IP addresses. */
  readonly hosts?: readonly string[];
}

/**
 * issue builds and signs one certificate: self-signed when `issuer` is undefined (the CA), else
 * signed by the issuer's key with the issuer's subject and key identifier.
 */
async function issue(profile: CertificateProfile, settings: IssueSettings, issuer: CertificateAndKey | undefined): Promise<CertificateAndKey> {
  const keys = await newKeyPair('ec', { namedCurve: 'prime256v1' });
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  // A positive, minimally encoded serial: DER integers are signed, so the top bit is cleared, and
  // a leading zero byte would be a non-minimal encoding OpenSSL refuses (1 in 128 random serials).
  const serial = Uint8Array.from(settings.serial);
  serial[0] = serial[0]! & 0x7f || 0x01;
  const subject = distinguishedName(profile.subject);
  let issuerName: Buffer;
  let issuerKeyId: Buffer;
  let signer: KeyObject;
  if (issuer === undefined) {
    issuerName = subject;
    issuerKeyId = keyIdentifier(spki);
    signer = keys.privateKey;
  } else {
    const issuerCertificate = new X509Certificate(issuer.certificate);
    issuerName = subjectOf(issuerCertificate);
    issuerKeyId = keyIdentifier(issuerCertificate.publicKey.export({ type: 'spki', format: 'der' }));
    signer = createPrivateKey(issuer.key);
  }

  const usage = keyUsageBits(profile.keyUsage);
  const extensions = [
    extension(OID.basicConstraints, sequence(...(profile.ca ? [TRUE] : [])), true),
    extension(OID.keyUsage, bitString(usage.bytes, usage.unused), true),
  ];
  if (profile.extKeyUsage !== undefined) extensions.push(extension(OID.extKeyUsage, sequence(oid(profile.extKeyUsage))));
  if (profile.ca) extensions.push(extension(OID.subjectKeyIdentifier, octetString(issuerKeyId)));
  // keyIdentifier [0] IMPLICIT OCTET STRING.
  else extensions.push(extension(OID.authorityKeyIdentifier, sequence(contextTag(0, issuerKeyId, false))));
  if (profile.hosts !== undefined && profile.hosts.length > 0) {
    // iPAddress [7] and dNSName [2], both IMPLICIT (OCTET STRING, IA5String).
    const altNames = profile.hosts.map((host) =>
      ipaddr.isValid(host) ? contextTag(7, Uint8Array.from(ipaddr.parse(host).toByteArray()), false) : contextTag(2, Buffer.from(host, 'latin1'), false),
    );
    extensions.push(extension(OID.subjectAltName, sequence(...altNames)));
  }

  const tbs = sequence(
    contextTag(0, integer(2), true),
    integer(serial),
    ECDSA_WITH_SHA256,
    issuerName,
    sequence(time(new Date(settings.now - BACKDATE_MS)), time(new Date(settings.now + profile.validityMs))),
    subject,
    spki,
    contextTag(3, sequence(...extensions), true),
  );
  const der = sequence(tbs, ECDSA_WITH_SHA256, bitString(sign('sha256', tbs, signer)));
  return {
    certificate: new X509Certificate(der).toString(),
    key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/**
 * distinguishedName is the subject's name: each O, then the CN, each attribute its own RDN (as
 * kubeadm and openssl write them), each value a UTF8String. The apiserver reads groups from the O
 * values in order.
 */
function distinguishedName(subject: Subject): Buffer {
  const attribute = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(
    ...(subject.organizations ?? []).map((organization) => attribute(OID.organization, organization)),
    attribute(OID.commonName, subject.commonName),
  );
}

/** FOGBANK_CA_SUBJECT names fogbank's CA (kubeadm's is CN=kubernetes). */
export const FOGBANK_CA_SUBJECT: Subject = { commonName: 'fogbank-ca', organizations: ['fogbank'] };

/** issueCa makes a self-signed CA that may sign certificates. */
export function issueCa(settings: IssueSettings, subject: Subject = FOGBANK_CA_SUBJECT): Promise<CertificateAndKey> {
  return issue(
    { subject, validityMs: CA_VALIDITY_MS, ca: true, keyUsage: [KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign] },
    settings,
    undefined,
  );
}

/** issueServing makes a serving certificate for `hosts` (DNS names and IP addresses), signed by `ca`. */
export function issueServing(ca: CertificateAndKey, hosts: readonly string[], settings: IssueSettings): Promise<CertificateAndKey> {
  return issue(
    {
      subject: { commonName: 'fogbank' },
      validityMs: LEAF_VALIDITY_MS,
      ca: false,
      keyUsage: [KEY_USAGE.digitalSignature],
      extKeyUsage: OID.serverAuth,
      hosts,
    },
    settings,
    ca,
  );
}

/** issueClient makes a client certificate for a user (CN) in groups (O values), signed by `ca`. */
export function issueClient(ca: CertificateAndKey, subject: Subject, settings: IssueSettings): Promise<CertificateAndKey> {
  return issue({ subject, validityMs: LEAF_VALIDITY_MS, ca: false, keyUsage: [KEY_USAGE.digitalSignature], extKeyUsage: OID.clientAuth }, settings, ca);
}
