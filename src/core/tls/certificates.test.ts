import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { tempDir } from '../../testing/temp.ts';
import { BACKDATE_MS, CA_VALIDITY_MS, type CertificateAndKey, issueCa, issueClient, issueServing, LEAF_VALIDITY_MS } from './certificates.ts';

// An injected instant, far from the machine's clock: validity must follow it, not Date.now().
const NOW = Date.parse('2030-06-01T12:00:00Z');
const settings = (serial = 1) => ({ now: NOW, serial: new Uint8Array(16).fill(serial) });

/** openssl prints a certificate's text (the extensions as OpenSSL reads them). */
function opensslText(pem: string): string {
  return execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem }).toString();
}

describe('certificates: fogbank issues a CA, a serving certificate and client certificates', () => {
  let ca: CertificateAndKey;
  let serving: CertificateAndKey;
  let client: CertificateAndKey;
  before(async () => {
    ca = await issueCa(settings(1));
    serving = await issueServing(ca, ['127.0.0.1', '::1', 'localhost', 'fogbank.example'], settings(2));
    client = await issueClient(ca, { commonName: 'alice', organizations: ['devs', 'qa'] }, settings(3));
  });

  it('makes a self-signed CA valid for ten years from the injected clock (an hour backdated)', () => {
    const certificate = new X509Certificate(ca.certificate);
    assert.equal(certificate.subject, 'O=fogbank\nCN=fogbank-ca');
    assert.equal(certificate.issuer, certificate.subject);
    assert.equal(certificate.ca, true);
    assert.equal(certificate.verify(certificate.publicKey), true);
    assert.equal(Date.parse(certificate.validFrom), NOW - BACKDATE_MS);
    assert.equal(Date.parse(certificate.validTo), NOW + CA_VALIDITY_MS);
    assert.equal(certificate.publicKey.asymmetricKeyType, 'ec');
    assert.equal(certificate.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const text = opensslText(ca.certificate);
    assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
    assert.match(text, /X509v3 Key Usage: critical\n\s+Digital Signature, Certificate Sign, CRL Sign\n/);
    assert.match(text, /X509v3 Subject Key Identifier: \n/);
  });

  it('signs a serving certificate for every host, as IP and DNS names, for server authentication only', () => {
    const certificate = new X509Certificate(serving.certificate);
    const issuer = new X509Certificate(ca.certificate);
    assert.equal(certificate.subject, 'CN=fogbank');
    assert.equal(certificate.checkIssued(issuer), true);
    assert.equal(certificate.verify(issuer.publicKey), true);
    assert.equal(certificate.ca, false);
    assert.equal(certificate.subjectAltName, 'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, DNS:fogbank.example');
    assert.equal(certificate.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(certificate.checkIP('::1'), '::1');
    assert.equal(certificate.checkHost('localhost'), 'localhost');
    assert.equal(certificate.checkIP('10.0.0.1'), undefined);
    assert.equal(Date.parse(certificate.validFrom), NOW - BACKDATE_MS);
    assert.equal(Date.parse(certificate.validTo), NOW + LEAF_VALIDITY_MS);
    assert.deepEqual(certificate.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.equal(certificate.checkPrivateKey(createPrivateKey(serving.key)), true);
    const text = opensslText(serving.certificate);
    assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
    assert.match(text, /X509v3 Key Usage: critical\n\s+Digital Signature\n/);
    assert.match(text, /X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication\n/);
    assert.match(text, /X509v3 Authority Key Identifier: \n/);
  });

  it('signs a client certificate with the user as CN and each group as an O, in order, for client authentication only', () => {
    const certificate = new X509Certificate(client.certificate);
    assert.equal(certificate.subject, 'O=devs\nO=qa\nCN=alice');
    assert.equal(certificate.verify(new X509Certificate(ca.certificate).publicKey), true);
    assert.deepEqual(certificate.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(certificate.subjectAltName, undefined);
  });

  it('puts the serial given, made positive', () => {
    assert.equal(new X509Certificate(serving.certificate).serialNumber, '02'.repeat(16));
  });

  it('encodes a serial whose first byte masks to zero minimally (1 in 128 random serials; OpenSSL refuses a leading zero byte)', async () => {
    for (const first of [0x00, 0x80]) {
      const serial = new Uint8Array(16).fill(0x05);
      serial[0] = first;
      const made = await issueCa({ now: NOW, serial });
      assert.equal(new X509Certificate(made.certificate).serialNumber, `01${'05'.repeat(15)}`);
    }
  });

  it('passes OpenSSL strict verification (what Python 3.13 and Go ask of a chain)', () => {
    const dir = tempDir('certificates');
    writeFileSync(join(dir, 'ca.crt'), ca.certificate);
    writeFileSync(join(dir, 'serving.crt'), serving.certificate);
    writeFileSync(join(dir, 'client.crt'), client.certificate);
    // -attime: the certificates are valid at the injected instant, not necessarily now.
    const at = String(Math.floor(NOW / 1000));
    const out = execFileSync('openssl', [
      'verify',
      '-x509_strict',
      '-attime',
      at,
      '-CAfile',
      join(dir, 'ca.crt'),
      '-purpose',
      'sslserver',
      join(dir, 'serving.crt'),
    ]);
    assert.equal(out.toString(), `${join(dir, 'serving.crt')}: OK\n`);
    const clientOut = execFileSync('openssl', [
      'verify',
      '-x509_strict',
      '-attime',
      at,
      '-CAfile',
      join(dir, 'ca.crt'),
      '-purpose',
      'sslclient',
      join(dir, 'client.crt'),
    ]);
    assert.equal(clientOut.toString(), `${join(dir, 'client.crt')}: OK\n`);
  });
});
