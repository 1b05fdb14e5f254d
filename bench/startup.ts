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

interface Subject {
  readonly label: string;
  readonly args: () => string[];
  readonly ready: number[];
  readonly rss: number[];
}

// Runs alternate between the subjects, so a machine whose load changes during the run (it is
// shared) skews every subject alike instead of whichever happened to run in the busy stretch.
async function measureAll(subjects: readonly Subject[]): Promise<{ label: string; readyMs: number; rss: number }[]> {
  for (let i = 0; i < RUNS; i++) {
    for (const subject of subjects) {
      const started = await startProcess(subject.args());
      subject.ready.push(started.readyMs);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      subject.rss.push(rssMb(started.child.pid!));
      await started.stop();
    }
  }
  return subjects.map((subject) => ({ label: subject.label, readyMs: median(subject.ready), rss: median(subject.rss) }));
}

const subject = (label: string, args: () => string[]): Subject => ({ label, args, ready: [], rss: [] });

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  dirs.push(dir);
  return dir;
};
// The floor for "a Node process that listens": plain node:http, no loader.
const [baseline, ...results] = await measureAll([
  subject('bare node:http', () => [...BARE_SERVER]),
  subject('fogbank, sqlite store', () => [main, 'start', '--port', '0', '--data-dir', fresh(), '--admin-token', 'b', '--log-level', 'warn']),
  subject('fogbank, --ephemeral', () => [main, 'start', '--port', '0', '--ephemeral', '--admin-token', 'b', '--log-level', 'warn']),
]);
if (baseline === undefined) throw new Error('no baseline');
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
