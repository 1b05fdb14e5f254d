import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ensureBuilt, rssMb, startProcess } from './lib/processes.ts';

/**
 * A 30 MiB `uploadType=media` message upload, streamed from a generator (neither side holds it
 * whole): samples the server's RSS every 20 ms and prints its growth over the idle baseline.
 * Goal: < 64 MB. Runs against the SQLite store with a data directory, as `fogbank start` does.
 */
const main = ensureBuilt();
const TOKEN = 'bench';
const MIB = 1024 * 1024;
const TOTAL = 30 * MIB;

function* message(): Generator<Buffer> {
  yield Buffer.from(
    'From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: big\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="big.bin"\r\n\r\n',
  );
  const line = Buffer.from(`${'x'.repeat(1022)}\r\n`);
  const block = Buffer.concat(Array.from({ length: 64 }, () => line));
  for (let sent = 0; sent < TOTAL; sent += block.length) yield block;
}

const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-upload-'));
const server = await startProcess([main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']);
try {
  const pid = server.child.pid!;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const baseline = rssMb(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  const began = performance.now();
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${server.url}/upload/gmail/v1/users/me/messages/send?uploadType=media`,
      { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    Readable.from(message()).pipe(req);
  });
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  if (answer.status !== 200) throw new Error(`upload failed: ${answer.status} ${answer.body}`);
  console.log('30 MiB uploadType=media message upload (sqlite store)');
  console.log(`  server RSS idle ${baseline.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB, growth ${(peak - baseline).toFixed(1)} MiB (goal < 64 MB)`);
  console.log(`  ${(TOTAL / MIB / seconds).toFixed(1)} MiB/s end to end (${seconds.toFixed(2)} s)`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
