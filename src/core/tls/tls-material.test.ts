import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cryptoIds } from '../../lib/ids.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { tempDir } from '../../testing/temp.ts';
import { issueCa, issueServing } from './certificates.ts';
import { fromFiles, generatedMaterial, TLS_DIR, TlsFilesError, tlsHosts } from './tls-material.ts';

const NOW = Date.now();

describe('tls-material: fogbank makes its certificates once and keeps them in the data directory', () => {
  let store: Store;
  before(async () => {
    store = await openStore('memory', { dataDir: '' });
  });
  after(() => store.close());

  it('covers loopback in every spelling and the configured host', () => {
    assert.deepEqual(tlsHosts('127.0.0.1'), ['127.0.0.1', '::1', 'localhost']);
    assert.deepEqual(tlsHosts('10.1.2.3'), ['127.0.0.1', '::1', 'localhost', '10.1.2.3']);
    assert.deepEqual(tlsHosts('0:0:0:0:0:0:0:1'), ['127.0.0.1', '::1', 'localhost']);
    assert.deepEqual(tlsHosts('Fogbank.Internal'), ['127.0.0.1', '::1', 'localhost', 'fogbank.internal']);
    assert.equal(tlsHosts('0.0.0.0').length, 4);
  });

  it('writes the CA, serving and admin certificates on the first start, keys readable by the owner only', async () => {
    const dataDir = tempDir('tls-material');
    const material = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW, ids: cryptoIds });
    const dir = join(dataDir, TLS_DIR);
    for (const name of ['ca', 'serving', 'admin']) {
      assert.equal(statSync(join(dir, `${name}.key`)).mode & 0o777, 0o600, `${name}.key`);
      assert.equal(statSync(join(dir, `${name}.crt`)).mode & 0o777, 0o644, `${name}.crt`);
    }
    assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), material.trust);
    assert.equal(material.clientCa, material.trust);
    assert.equal(readFileSync(join(dir, 'serving.crt'), 'utf8'), material.serving.certificate);
    assert.equal(new X509Certificate(material.admin!.certificate).subject, 'O=system:masters\nCN=kubernetes-admin');
    assert.equal(new X509Certificate(material.serving.certificate).checkIssued(new X509Certificate(material.trust)), true);
  });

  it('reads them back on the next start, and makes only a new serving certificate when the host changes', async () => {
    const dataDir = tempDir('tls-material');
    const first = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW, ids: cryptoIds });
    const again = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW + 1000, ids: cryptoIds });
    assert.deepEqual(again, first);
    const moved = await generatedMaterial({ host: '192.0.2.7', dataDir, store, now: NOW + 2000, ids: cryptoIds });
    assert.equal(moved.trust, first.trust);
    assert.deepEqual(moved.admin, first.admin);
    assert.notEqual(moved.serving.certificate, first.serving.certificate);
    assert.equal(new X509Certificate(moved.serving.certificate).checkIP('192.0.2.7'), '192.0.2.7');
    assert.equal(readFileSync(join(dataDir, TLS_DIR, 'serving.crt'), 'utf8'), moved.serving.certificate);
  });

  it('makes a new serving certificate when the one on disk is about to expire, or is not signed by the CA', async () => {
    const dataDir = tempDir('tls-material');
    const first = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW, ids: cryptoIds });
    const late = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW + 365 * 24 * 3600 * 1000, ids: cryptoIds });
    assert.equal(late.trust, first.trust);
    assert.notEqual(late.serving.certificate, first.serving.certificate);
    const foreign = await issueCa({ now: NOW, serial: cryptoIds.bytes(16) }, { commonName: 'other' });
    const stray = await issueServing(foreign, tlsHosts('127.0.0.1'), { now: NOW, serial: cryptoIds.bytes(16) });
    writeFileSync(join(dataDir, TLS_DIR, 'serving.crt'), stray.certificate);
    writeFileSync(join(dataDir, TLS_DIR, 'serving.key'), stray.key);
    const fixed = await generatedMaterial({ host: '127.0.0.1', dataDir, store, now: NOW, ids: cryptoIds });
    assert.equal(new X509Certificate(fixed.serving.certificate).checkIssued(new X509Certificate(first.trust)), true);
  });

  it('without a data directory, makes them in memory once per process', async () => {
    const one = await generatedMaterial({ host: '127.0.0.1', dataDir: undefined, store, now: NOW, ids: cryptoIds });
    const two = await generatedMaterial({ host: '127.0.0.1', dataDir: undefined, store, now: NOW, ids: cryptoIds });
    assert.deepEqual(two, one);
  });

  it('checks certificates the user brings, naming the flag at fault', async () => {
    const ca = await issueCa({ now: NOW, serial: cryptoIds.bytes(16) });
    const other = await issueCa({ now: NOW, serial: cryptoIds.bytes(16) });
    assert.deepEqual(fromFiles({ cert: ca.certificate, key: ca.key }), {
      serving: ca,
      trust: ca.certificate,
      clientCa: undefined,
      admin: undefined,
      ca: undefined,
    });
    assert.throws(() => fromFiles({ cert: 'nonsense', key: ca.key }), new TlsFilesError('the TLS certificate (--tls-cert) is not a PEM certificate'));
    assert.throws(() => fromFiles({ cert: ca.certificate, key: 'nonsense' }), new TlsFilesError('the TLS key (--tls-key) is not a PEM private key'));
    assert.throws(
      () => fromFiles({ cert: ca.certificate, key: other.key }),
      new TlsFilesError('the TLS key (--tls-key) is not the key of the certificate (--tls-cert)'),
    );
    assert.throws(() => fromFiles({ cert: ca.certificate, key: ca.key, ca: 'x' }), new TlsFilesError('the TLS CA (--tls-ca) is not a PEM certificate'));
  });
});
