import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BARE_SERVER, ensureBuilt, median, rssMb, startProcess } from './lib/processes.ts';

/**
 * Start-up benchmark: time from spawning `fogbank start` (compiled, as `npm start` runs it) to
 * its `listening on` line — every API answering — and idle RSS after it settles, against a bare
 * node:http server process measured in the same run. Targets: ready ≤ 300 ms, idle RSS ≤ 80 MB.
 */
const RUNS = Number(process.env['RUNS'] ?? 7);
const main = ensureBuilt();

async function measure(label: string, args: () => string[]): Promise<{ label: string; readyMs: number; rss: number }> {
  const ready: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = await startProcess(args());
    ready.push(started.readyMs);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    rss.push(rssMb(started.child.pid!));
    await started.stop();
  }
  return { label, readyMs: median(ready), rss: median(rss) };
}

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  dirs.push(dir);
  return dir;
};
// The floor for "a Node process that listens": plain node:http, no loader.
const baseline = await measure('bare node:http', () => [...BARE_SERVER]);
const results = [
  await measure('fogbank, sqlite store', () => [main, 'start', '--port', '0', '--data-dir', fresh(), '--admin-token', 'b', '--log-level', 'warn']),
  await measure('fogbank, --ephemeral', () => [main, 'start', '--port', '0', '--ephemeral', '--admin-token', 'b', '--log-level', 'warn']),
];
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });

console.log(`start-up, median of ${RUNS} runs (node ${process.version})`);
console.log(`${'server'.padEnd(26)} ${'ready ms'.padStart(9)} ${'× bare'.padStart(7)} ${'idle RSS MiB'.padStart(13)} ${'× bare'.padStart(7)}`);
for (const r of [baseline, ...results]) {
  console.log(
    `${r.label.padEnd(26)} ${r.readyMs.toFixed(0).padStart(9)} ${(r.readyMs / baseline.readyMs).toFixed(2).padStart(7)} ${r.rss.toFixed(1).padStart(13)} ${(r.rss / baseline.rss).toFixed(2).padStart(7)}`,
  );
}
const worst = results.reduce((a, b) => (a.readyMs > b.readyMs ? a : b));
const fattest = results.reduce((a, b) => (a.rss > b.rss ? a : b));
console.log(`targets: ready ≤ 300 ms → ${worst.readyMs <= 300 ? 'met' : 'MISSED'} (${worst.readyMs.toFixed(0)} ms); idle RSS ≤ 80 MB → ${fattest.rss <= 80 ? 'met' : 'MISSED'} (${fattest.rss.toFixed(1)} MiB)`);
