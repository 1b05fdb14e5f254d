import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleItems, writeZip, zeros } from '../../src/services/publisher/artifact-builder.fixture.ts';
import type { FogbankProcess } from '../harness/process.ts';
import { startReplicaPair, type ReplicaPair } from '../harness/replicas.ts';

// Resumable uploads on two `fogbank start --store postgres://…` replicas: a session initiated
// through A is continued and completed through B. Each replica has its own data directory, so
// the only thing they share is the database — the session record and its bytes.

const TOKEN = 'e2e-upload-replicas';
const MIB = 1024 * 1024;
const PKG = 'com.example.replicas';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

async function call(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  const response = await fetch(url, { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers }, ...(body === undefined ? {} : { body }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('resumable uploads across replicas on one PostgreSQL', () => {
  let a: FogbankProcess;
  let b: FogbankProcess;
  let work: string;
  let replicas: ReplicaPair | undefined;

  before(async () => {
    replicas = await startReplicaPair('upload_replicas', TOKEN);
    ({ a, b, work } = replicas);
  });
  after(() => replicas?.stop());

  /** initiate starts a resumable session through `base` and returns its upload address (path and query). */
  async function initiate(base: string, path: string, headers: Record<string, string>, metadata: string): Promise<string> {
    const answer = await call(`${base}${path}`, 'POST', { 'content-type': 'application/json; charset=UTF-8', ...headers }, Buffer.from(metadata));
    assert.equal(answer.status, 200, answer.text);
    const location = new URL(answer.headers.get('location')!);
    assert.equal(location.origin, base);
    return `${location.pathname}${location.search}`;
  }

  it('mail messages.send: started on A, a chunk on A, status and the rest on B, the answer repeated by A', async () => {
    const body = Buffer.concat([
      Buffer.from(
        'From: admin@fogbank.local\r\nTo: carol@example.com\r\nSubject: across replicas\r\nMessage-ID: <replicas-1@example.com>\r\nDate: Tue, 3 Jun 2025 09:00:00 +0000\r\n\r\n',
      ),
      Buffer.from('0123456789abcdef\r\n'.repeat((3 * MIB) / 18)),
    ]);
    const total = body.length;
    const upload = await initiate(
      a.url,
      '/upload/gmail/v1/users/me/messages/send?uploadType=resumable',
      { 'x-upload-content-type': 'message/rfc822', 'x-upload-content-length': String(total) },
      '{}',
    );
    const first = 2 * MIB;
    const onA = await call(`${a.url}${upload}`, 'PUT', { 'content-range': `bytes 0-${first - 1}/${total}` }, body.subarray(0, first));
    assert.equal(onA.status, 308);
    assert.equal(onA.headers.get('range'), `bytes=0-${first - 1}`);
    const status = await call(`${b.url}${upload}`, 'PUT', { 'content-range': `bytes */${total}` });
    assert.equal(status.status, 308);
    assert.equal(status.headers.get('range'), `bytes=0-${first - 1}`);
    const done = await call(`${b.url}${upload}`, 'PUT', { 'content-range': `bytes ${first}-${total - 1}/${total}` }, body.subarray(first));
    assert.equal(done.status, 200, done.text);
    const sent = JSON.parse(done.text) as { id: string; labelIds: string[] };
    assert.deepEqual(sent.labelIds, ['SENT']);
    const again = await call(`${a.url}${upload}`, 'PUT', { 'content-range': `bytes */${total}` });
    assert.equal(again.status, 200);
    assert.deepEqual(JSON.parse(again.text), sent);
    const raw = JSON.parse((await call(`${b.url}/gmail/v1/users/me/messages/${sent.id}?format=raw`, 'GET', {})).text) as { raw: string };
    assert.equal(sha256(Buffer.from(raw.raw, 'base64url')), sha256(body));
  });

  it('publisher uploadbundle: chunks alternate between A and B, a stale chunk is refused, B completes', async () => {
    const file = join(work, 'replicas.aab');
    const payload = 5 * MIB + 123;
    await writeZip(file, [
      ...bundleItems({ packageName: PKG, versionCode: 7 }),
      { name: 'base/assets/payload.bin', stream: () => zeros(payload), size: payload },
    ]);
    const bundle = readFileSync(file);
    const total = bundle.length;
    const path = `/upload/androidpublisher/v3/applications/internalappsharing/${PKG}/artifacts/bundle?uploadType=resumable`;
    const upload = await initiate(a.url, path, { 'x-upload-content-type': 'application/octet-stream' }, '');
    const cuts = [0, 2 * MIB, 4 * MIB, total];
    const through = [a, b, b];
    for (let i = 0; i < 3; i++) {
      const [start, end] = [cuts[i]!, cuts[i + 1]!];
      const answer = await call(`${through[i]!.url}${upload}`, 'PUT', { 'content-range': `bytes ${start}-${end - 1}/${total}` }, bundle.subarray(start, end));
      if (end < total) {
        assert.equal(answer.status, 308, answer.text);
        assert.equal(answer.headers.get('range'), `bytes=0-${end - 1}`);
        // A chunk that starts past what the other replica committed is refused there too.
        const gap = await call(`${(i === 0 ? b : a).url}${upload}`, 'PUT', { 'content-range': `bytes ${end + 1}-${end + 1}/${total}` }, Buffer.from('x'));
        assert.equal(gap.status, 400);
        assert.equal(
          (JSON.parse(gap.text) as { error: { message: string } }).error.message,
          `Invalid request. According to the Content-Range header, the upload offset is ${end + 1} byte(s), which exceeds already uploaded size of ${end} byte(s).`,
        );
        continue;
      }
      assert.equal(answer.status, 200, answer.text);
      const artifact = JSON.parse(answer.text) as { sha256: string; downloadUrl: string };
      assert.equal(artifact.sha256, sha256(bundle));
      assert.ok(artifact.downloadUrl.startsWith(`${a.url}/`), artifact.downloadUrl);
    }
  });
});
