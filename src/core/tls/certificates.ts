/**
 * Issuing fogbank's X.509 certificates: a CA, the serving certificate it signs (SANs for every
 * name a client may dial) and client certificates (CN = user, O = groups, as the apiserver reads
 * them). ECDSA P-256 keys through WebCrypto, the certificates built with pkijs/asn1js (node:crypto
 * parses certificates but issues none). Both libraries load here only, and this module is
 * imported only when a certificate has to be made: a start that finds its certificates pays
 * nothing for them.
 *
 * The extensions are the ones strict verifiers ask for (Python 3.13's VERIFY_X509_STRICT, Go's
 * crypto/x509): a critical basicConstraints and keyUsage everywhere, a subjectKeyIdentifier on
 * the CA, an authorityKeyIdentifier on what it signs, extKeyUsage serverAuth or clientAuth.
 */
import { createHash, createPrivateKey, KeyObject, X509Certificate, type webcrypto } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { commonJs } from '../lazy.ts';

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

type Asn1 = typeof import('asn1js');
type Pki = typeof import('pkijs');

/** libraries loads asn1js and pkijs (CommonJS under the bundle: commonJs picks the right export). */
async function libraries(): Promise<{ asn1: Asn1; pki: Pki }> {
  const [asn1, pki] = await Promise.all([import('asn1js'), import('pkijs')]);
  return { asn1: commonJs(asn1), pki: commonJs(pki) };
}

/** newKeyPair makes an ECDSA P-256 key pair. */
async function newKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
}

/** signingKey imports a PEM private key (as this module writes them) for signing. */
async function signingKey(pem: string): Promise<webcrypto.CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return globalThis.crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
}

/** keyUsageBits encodes the named keyUsage bits as a DER BIT STRING's bytes and unused-bit count. */
function keyUsageBits(bits: readonly number[]): { bytes: Uint8Array; unused: number } {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> (bit % 8);
  // DER: the unused bits are those after the last set one.
  return { bytes, unused: 7 - (highest % 8) };
}

/** keyIdentifier is the SHA-1 of the subject public key's bits (RFC 5280 4.2.1.2, method 1), as Go and OpenSSL compute it. */
function keyIdentifier(certificate: InstanceType<Pki['Certificate']>): Uint8Array {
  return createHash('sha1').update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
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
  const { asn1, pki } = await libraries();
  const keys = await newKeyPair();
  const certificate = new pki.Certificate();
  certificate.version = 2;
  // A positive, minimally encoded serial: DER integers are signed, so the top bit is cleared, and
  // a leading zero byte would be a non-minimal encoding OpenSSL refuses (1 in 128 random serials).
  const serial = Uint8Array.from(settings.serial);
  serial[0] = serial[0]! & 0x7f || 0x01;
  certificate.serialNumber = new asn1.Integer({ valueHex: serial });
  certificate.subject = distinguishedName(asn1, pki, profile.subject);
  certificate.notBefore.value = new Date(settings.now - BACKDATE_MS);
  certificate.notAfter.value = new Date(settings.now + profile.validityMs);
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);

  let issuerKeyId: Uint8Array;
  if (issuer === undefined) {
    certificate.issuer = distinguishedName(asn1, pki, profile.subject);
    issuerKeyId = keyIdentifier(certificate);
  } else {
    const issuerCertificate = pki.Certificate.fromBER(new X509Certificate(issuer.certificate).raw);
    certificate.issuer = issuerCertificate.subject;
    issuerKeyId = keyIdentifier(issuerCertificate);
  }

  const usage = keyUsageBits(profile.keyUsage);
  const extensions = [
    new pki.Extension({
      extnID: OID.basicConstraints,
      critical: true,
      extnValue: new pki.BasicConstraints({ cA: profile.ca }).toSchema().toBER(false),
    }),
    new pki.Extension({
      extnID: OID.keyUsage,
      critical: true,
      extnValue: new asn1.BitString({ valueHex: usage.bytes, unusedBits: usage.unused }).toBER(false),
    }),
  ];
  if (profile.extKeyUsage !== undefined) {
    extensions.push(
      new pki.Extension({ extnID: OID.extKeyUsage, extnValue: new pki.ExtKeyUsage({ keyPurposes: [profile.extKeyUsage] }).toSchema().toBER(false) }),
    );
  }
  if (profile.ca) {
    extensions.push(new pki.Extension({ extnID: OID.subjectKeyIdentifier, extnValue: new asn1.OctetString({ valueHex: issuerKeyId }).toBER(false) }));
  } else {
    extensions.push(
      new pki.Extension({
        extnID: OID.authorityKeyIdentifier,
        extnValue: new pki.AuthorityKeyIdentifier({ keyIdentifier: new asn1.OctetString({ valueHex: issuerKeyId }) }).toSchema().toBER(false),
      }),
    );
  }
  if (profile.hosts !== undefined && profile.hosts.length > 0) {
    const altNames = profile.hosts.map((host) =>
      ipaddr.isValid(host)
        ? new pki.GeneralName({ type: 7, value: new asn1.OctetString({ valueHex: Uint8Array.from(ipaddr.parse(host).toByteArray()) }) })
        : new pki.GeneralName({ type: 2, value: host }),
    );
    extensions.push(new pki.Extension({ extnID: OID.subjectAltName, extnValue: new pki.AltName({ altNames }).toSchema().toBER(false) }));
  }
  certificate.extensions = extensions;

  await certificate.sign(issuer === undefined ? keys.privateKey : await signingKey(issuer.key), 'SHA-256');
  const der = Buffer.from(certificate.toSchema(true).toBER(false));
  return {
    certificate: new X509Certificate(der).toString(),
    key: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/**
 * distinguishedName is the subject's name: each O, then the CN, each attribute its own RDN (as
 * kubeadm and openssl write them; pkijs alone would put them all in one multi-valued RDN). The
 * apiserver reads groups from the O values in order.
 */
function distinguishedName(asn1: Asn1, pki: Pki, subject: Subject): InstanceType<Pki['RelativeDistinguishedNames']> {
  const attributes = [
    ...(subject.organizations ?? []).map((o) => new pki.AttributeTypeAndValue({ type: OID.organization, value: new asn1.Utf8String({ value: o }) })),
    new pki.AttributeTypeAndValue({ type: OID.commonName, value: new asn1.Utf8String({ value: subject.commonName }) }),
  ];
  const name = new asn1.Sequence({ value: attributes.map((attribute) => new asn1.Set({ value: [attribute.toSchema()] })) });
  // Parsed from its encoding, the name keeps that encoding (valueBeforeDecode) when written again.
  return pki.RelativeDistinguishedNames.fromBER(name.toBER(false));
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
