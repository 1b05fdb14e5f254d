import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleItems, jarSign, makeSigner, writeZip, type ZipItem } from '../../src/services/publisher/artifact-builder.fixture.ts';
import { locateClient, missingClientMessage } from '../harness/clients.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

/**
 * google-api-python-client as Debian ships it (python3-googleapi 1.7.12, run by /usr/bin/python3,
 * not a pyenv python3 on PATH): every client is built from the Discovery document fogbank serves
 * (build() with discoveryServiceUrl), with only an access token, and used as a user would —
 * Gmail sends by raw and by media upload (simple and resumable) and through drafts, Play internal
 * app sharing bundle uploads (stored and deflated archives, simple and resumable), a compute
 * instance template insert and its Operation waited on. A proxy that answers nothing stands for
 * every address but loopback, so a call that left fogbank would fail.
 */

const SCRIPT = fileURLToPath(new URL('python/googleapi_client.py', import.meta.url));
const PYTHON = locateClient('python3-googleapi');
const PACKAGE = 'com.example.discovery';

let server: RunningFogbank;
let work: string;

before(async () => {
  // Loudly: a missing client is a failure here, not a skip.
  assert.ok(PYTHON !== undefined, missingClientMessage('python3-googleapi'));
  work = mkdtempSync(join(tmpdir(), 'fogbank-python-googleapi-'));
  server = await startFogbank({
    ephemeral: true,
    adminToken: 'admin-token',
    tokens: [
      { token: 'ann-token', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
      { token: 'bob-token', email: 'bob@example.com', scopes: ['gmail.readonly'], permissions: [] },
    ],
  });
});
after(async () => {
  await server?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** python runs one scenario of the script against fogbank and returns what it printed. */
function python(scenario: string, token: string, ...args: string[]): Promise<Record<string, unknown>> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: work,
    // Nothing answers on port 9: unknown request not to loopback fails at once instead of leaving the machine.
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    no_proxy: '127.0.0.1,localhost',
    NO_PROXY: '127.0.0.1,localhost',
  };
  return new Promise((resolve, reject) => {
    execFile(PYTHON!, [SCRIPT, server.url, scenario, token, ...args], { env, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      // The message carries the script's stderr (its traceback).
      if (error !== null) reject(new Error(`${scenario} failed: ${error.message}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

describe('Debian python3-googleapi against fogbank’s Discovery documents', () => {
  test('gmail: build() from fogbank, send by raw, by media upload (simple and resumable), and through a draft', async () => {
    const result = await python('gmail', 'ann-token', 'bob-token');
    assert.deepEqual(result['sentLabels'], [['SENT'], ['SENT'], ['SENT'], ['SENT']]);
    assert.deepEqual(result['draftsListed'], [result['draftId']]);
    assert.equal(result['draftsAfterSend'], 0);
    assert.deepEqual(result['recipientSubjects'], ['draft send', 'media send', 'raw send', 'resumable send']);
  });

  test('mail: build() by the spec’s name sends through /mail/v1, by raw and by media upload', async () => {
    const result = await python('mail-alias', 'ann-token');
    assert.deepEqual(result, { labels: [['SENT'], ['SENT']], profile: 'ann@example.com' });
  });

  /** uploadBundles builds a signed bundle whose entries are stored as `compress` says, and uploads it by simple and resumable upload. */
  async function uploadBundles(name: string, compress: (entry: string, index: number) => boolean): Promise<void> {
    const signer = makeSigner('Discovery Upload Key');
    const items = jarSign(bundleItems({ packageName: PACKAGE, versionCode: 3, versionName: '3.0' }), signer);
    const file = join(work, `${name}.aab`);
    await writeZip(
      file,
      items.map((item, index): ZipItem => ('data' in item ? { name: item.name, data: item.data, compress: compress(item.name, index) } : item)),
    );
    const result = await python('publisher', 'admin-token', PACKAGE, file);
    const uploads = result['uploads'] as { file: string; resumable: boolean; artifact: Record<string, string> }[];
    assert.deepEqual(
      uploads.map((upload) => upload.resumable),
      [false, true],
    );
    for (const { artifact } of uploads) {
      assert.deepEqual(Object.keys(artifact).sort(), ['certificateFingerprint', 'downloadUrl', 'sha256']);
      assert.ok(artifact['downloadUrl']!.startsWith(`${server.url}/_fogbank/publisher/apps/test/${PACKAGE}/`), artifact['downloadUrl']);
      assert.equal(artifact['sha256'], createHash('sha256').update(readFileSync(file)).digest('hex'));
    }
  }

  test('androidpublisher: build() from fogbank, uploadbundle of a deflated bundle, simple and resumable', async () => {
    await uploadBundles('deflated', () => true);
  });

  test('androidpublisher: uploadbundle of a bundle whose entries are all stored, simple and resumable', async () => {
    await uploadBundles('stored', () => false);
  });

  test('androidpublisher: uploadbundle of a bundle mixing stored and deflated entries, simple and resumable', async () => {
    await uploadBundles('mixed', (_entry, index) => index % 2 === 0);
  });

  test('compute: build() from fogbank, insert an instance template and wait for its Operation', async () => {
    const result = await python('compute', 'admin-token', 'discovery-project', 'from-python');
    assert.equal(result['operationType'], 'insert');
    assert.deepEqual(result['waited'], {
      kind: 'compute#operation',
      status: 'DONE',
      operationType: 'insert',
      targetLink: `${server.url}/compute/v1/projects/discovery-project/global/instanceTemplates/from-python`,
      error: null,
    });
    assert.deepEqual(result['template'], {
      kind: 'compute#instanceTemplate',
      name: 'from-python',
      selfLink: `${server.url}/compute/v1/projects/discovery-project/global/instanceTemplates/from-python`,
    });
    assert.deepEqual(result['listed'], ['from-python']);
  });

  test('build() through the $discovery address, for the API whose version only it has', async () => {
    const result = await python('discovery-v2', 'admin-token');
    assert.deepEqual(result['methods'], ['uploadapk', 'uploadbundle']);
  });
});
