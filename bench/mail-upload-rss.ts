import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ensureBuilt, rssMb, startProcess } from './lib/processes.ts';
import { atMost, type Bench, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * A 30 MiB `uploadType=media` message upload, streamed from a generator (neither side holds it
 * whole): samples the server's RSS every 20 ms and reports its growth over the idle figure, a
 * fresh server each round. Goal: < 64 MB. Runs against the SQLite store with a data directory,
 * as `fogbank start` does; the end-to-end rate is shown beside it (no baseline).
 */
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

/** uploadOnce starts a server, uploads once, and returns the RSS growth (MB) and the rate (MiB/s). */
async function uploadOnce(main: string): Promise<{ growth: number; rate: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-upload-'));
  const server = await startProcess([main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn', '--no-warm-up']);
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
    return { growth: ((peak - baseline) * MIB) / 1e6, rate: TOTAL / MIB / seconds };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bench measures RSS growth during a 30 MiB media upload. */
export const bench: Bench = async ({ rounds }) => {
  const main = ensureBuilt();
  const runs: { growth: number; rate: number }[] = [];
  await interleaved(rounds, [
    {
      label: 'upload',
      measure: async () => {
        runs.push(await uploadOnce(main));
        return 0;
      },
    },
  ]);
  return [
    metricOf({
      metric: '30 MiB media message upload, server RSS growth (SQLite)',
      unit: 'MB',
      fogbank: runs.map((r) => r.growth),
      goal: atMost(64, 'MB'),
      note: "the server starts with --no-warm-up, so the growth is the upload's own (the MIME stack loads with it)",
    }),
    metricOf({ metric: '30 MiB media message upload, end to end', unit: 'MiB/s', fogbank: runs.map((r) => r.rate) }),
  ];
};

runAlone(import.meta, bench);
