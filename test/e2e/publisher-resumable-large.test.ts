import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bundleItems, writeZip, zeros } from '../../src/services/publisher/artifact-builder.fixture.ts';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';

// A large bundle uploaded with uploadType=resumable, chunk by chunk, to fogbank on the SQLite
// store: a chunk is cut off half way, fogbank is killed and restarted, the status query says
// what was kept, the upload resumes and completes — and the server's RSS never grows by 64 MB.
// The payload is the 1 GiB (about 30 s on a shared 2-core machine, so it runs in the
// default suite; it needs ~3 GiB of free temporary disk for the file, the session and the artifact).

const MIB = 1024 * 1024;
const PAYLOAD = 1024 * MIB;
const CHUNK = 64 * MIB;
const RSS_LIMIT_MB = 64;
const TOKEN = 'large-upload';
const PKG = 'com.example.large';
const work = mkdtempSync(join(tmpdir(), 'fogbank-large-upload-'));
let running: FogbankProcess | undefined;

after(async () => {
  if (running !== undefined && running.child.exitCode === null) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
  rmSync(work, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly range: string | undefined;
  readonly body: string;
}

/** put sends bytes [start, end) of `file` as one resumable chunk, streamed from disk; `dropAfter` cuts it off after that many bytes. */
function put(url: string, headers: Record<string, string>, file?: string, start = 0, end = 0, dropAfter?: number): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const length = end - start;
    const outgoing = request(
      url,
      { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-length': String(length), ...headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, range: response.headers['range'], body }));
      },
    );
    if (file === undefined || length === 0) {
      outgoing.once('error', reject);
      outgoing.end();
      return;
    }
    if (dropAfter !== undefined) {
      outgoing.once('error', () => resolve(undefined));
      outgoing.once('close', () => resolve(undefined));
      const part = createReadStream(file, { start, end: start + dropAfter - 1 });
      part.pipe(outgoing, { end: false });
      part.once('end', () => setTimeout(() => outgoing.destroy(), 300));
      return;
    }
    outgoing.once('error', reject);
    createReadStream(file, { start, end: end - 1 }).pipe(outgoing);
  });
}

/** RssWatch samples a process's VmRSS (from /proc) until stopped, keeping the first and the largest. */
class RssWatch {
  readonly baseline: number;
  peak: number;
  readonly #timer: NodeJS.Timeout;
  constructor(private readonly pid: number) {
    this.baseline = this.#sample();
    this.peak = this.baseline;
    this.#timer = setInterval(() => (this.peak = Math.max(this.peak, this.#sample())), 50);
  }
  #sample(): number {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))![1]) / 1024;
    } catch {
      return this.peak;
    }
  }
  stop(): number {
    clearInterval(this.#timer);
    this.peak = Math.max(this.peak, this.#sample());
    return this.peak - this.baseline;
  }
}

const start = (): Promise<FogbankProcess> =>
  startFogbankProcess(['--port', '0', '--data-dir', join(work, 'data'), '--admin-token', TOKEN, '--log-level', 'silent', '--no-warm-up']);

test(`a ${PAYLOAD / MIB} MiB bundle by resumable upload: cut off, fogbank restarted, resumed, completed, RSS growth < ${RSS_LIMIT_MB} MB`, {
  timeout: 600_000,
}, async (t) => {
  const file = join(work, 'large.aab');
  // A stored (uncompressed) zero payload entry, streamed to disk: nothing this size is ever in memory.
  await writeZip(file, [
    ...bundleItems({ packageName: PKG, versionCode: 42 }),
    { name: 'base/assets/payload.bin', stream: () => zeros(PAYLOAD), size: PAYLOAD },
  ]);
  const total = statSync(file).size;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const expectedSha = hash.digest('hex');

  running = await start();
  const initiated = await fetch(`${running.url}/upload/androidpublisher/v3/applications/internalappsharing/${PKG}/artifacts/bundle?uploadType=resumable`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'x-upload-content-type': 'application/octet-stream', 'x-upload-content-length': String(total) },
  });
  assert.equal(initiated.status, 200);
  const location = new URL(initiated.headers.get('location')!);
  const path = `${location.pathname}${location.search}`;

  let watch = new RssWatch(running.child.pid!);
  let sent = 0;
  // Two whole chunks, then the third is cut off half way and fogbank is killed.
  for (let i = 0; i < 2; i++) {
    const answer = await put(`${running.url}${path}`, { 'content-range': `bytes ${sent}-${sent + CHUNK - 1}/${total}` }, file, sent, sent + CHUNK);
    assert.equal(answer?.status, 308, answer?.body);
    assert.equal(answer?.range, `bytes=0-${sent + CHUNK - 1}`);
    sent += CHUNK;
  }
  await put(`${running.url}${path}`, { 'content-range': `bytes ${sent}-${sent + CHUNK - 1}/${total}` }, file, sent, sent + CHUNK, CHUNK / 2);
  const firstGrowth = watch.stop();
  running.child.kill('SIGKILL');
  await running.exited;

  running = await start();
  // What a first artifact costs whatever its size (the inspection and signing code loaded, the
  // signing key made) is paid by a small bundle first, so the bound measures what the 1 GiB
  // upload itself holds: a buffered payload would exceed it sixteen times over.
  const small = join(work, 'small.aab');
  await writeZip(small, bundleItems({ packageName: PKG, versionCode: 41 }));
  const first = await fetch(`${running.url}/upload/androidpublisher/v3/applications/internalappsharing/${PKG}/artifacts/bundle?uploadType=media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
    body: readFileSync(small),
  });
  assert.equal(first.status, 200, await first.text());
  watch = new RssWatch(running.child.pid!);
  const status = await put(`${running.url}${path}`, { 'content-range': `bytes */${total}` });
  assert.equal(status?.status, 308);
  const kept = Number(/^bytes=0-(\d+)$/.exec(status?.range ?? '')?.[1] ?? '-1') + 1;
  assert.ok(kept >= sent && kept <= sent + CHUNK / 2, `kept what was durably received: ${kept}`);
  sent = kept;
  let last: Answer | undefined;
  while (sent < total) {
    const end = Math.min(sent + CHUNK, total);
    last = await put(`${running.url}${path}`, { 'content-range': `bytes ${sent}-${end - 1}/${total}` }, file, sent, end);
    assert.equal(last?.status, end === total ? 200 : 308, last?.body);
    sent = end;
  }
  const secondGrowth = watch.stop();
  const artifact = JSON.parse(last!.body) as { sha256: string; downloadUrl: string };
  assert.equal(artifact.sha256, expectedSha);
  t.diagnostic(
    `RSS growth: ${firstGrowth.toFixed(1)} MB before the restart, ${secondGrowth.toFixed(1)} MB after (completion included, a small first artifact before)`,
  );
  assert.ok(firstGrowth < RSS_LIMIT_MB, `RSS grew by ${firstGrowth.toFixed(1)} MB before the restart`);
  assert.ok(secondGrowth < RSS_LIMIT_MB, `RSS grew by ${secondGrowth.toFixed(1)} MB after the restart`);
  // The session's bytes are gone once the artifact is kept.
  assert.deepEqual(readdirSync(join(work, 'data', 'uploads')), []);
  const again = await put(`${running.url}${path}`, { 'content-range': `bytes */${total}` });
  assert.equal(again?.status, 200);
  assert.equal((JSON.parse(again!.body) as { sha256: string }).sha256, expectedSha);
});
