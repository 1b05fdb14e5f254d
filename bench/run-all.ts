// bench/run-all.ts (`npm run bench`): runs every bench file in sequence, each in its own
// process (so one bench's heap, sockets or crash do not touch the next), prints ONE table
// (metric, fogbank, baseline, ratio, goal, met) and writes bench/results.json with the machine,
// the Node version, the commit and the date.
//   npm run bench                         every bench, 3 rounds
//   npm run bench -- --only mail-send     a subset (comma-separated or repeated; a name matches a file's stem)
//   npm run bench -- --rounds 5 --quick   more rounds; shorter sides
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './lib/processes.ts';
import { type BenchMetric, formatTable, parseBenchArgs } from './lib/report.ts';

const BENCH_DIR = join(ROOT, 'bench');

/** FileResult is one bench file's outcome in results.json. */
interface FileResult {
  file: string;
  seconds: number;
  status: 'ok' | 'failed' | 'no-metrics';
  metrics: BenchMetric[];
}

function onlyArgs(argv: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--only') names.push(...(argv[++i] ?? '').split(','));
    else if (arg.startsWith('--only=')) names.push(...arg.slice('--only='.length).split(','));
  }
  return names.filter((n) => n !== '').map((n) => n.replace(/\.ts$/, '').replace(/^bench\//, ''));
}

function git(args: readonly string[]): string {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

const argv = process.argv.slice(2);
const options = parseBenchArgs(argv);
const only = onlyArgs(argv);
const all = readdirSync(BENCH_DIR)
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts')
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();
for (const name of only) if (!all.includes(name)) throw new Error(`no bench named ${name}; known: ${all.join(', ')}`);
const chosen = only.length === 0 ? all : all.filter((name) => only.includes(name));

// Build the bundle once; the benches' own ensureBuilt() then skips it (BENCH_BUILT).
ensureBuilt();
const started = new Date();
const loadBefore = loadavg();
const work = mkdtempSync(join(tmpdir(), 'fogbank-bench-all-'));
const results: FileResult[] = [];
try {
  for (const name of chosen) {
    const json = join(work, `${name}.json`);
    process.stderr.write(`\n== bench/${name}.ts (${options.rounds} rounds${options.quick ? ', quick' : ''})\n`);
    const began = performance.now();
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(BENCH_DIR, `${name}.ts`), '--rounds', String(options.rounds), ...(options.quick ? ['--quick'] : []), '--json', json],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, BENCH_BUILT: '1' } },
    );
    const seconds = (performance.now() - began) / 1000;
    let metrics: BenchMetric[] = [];
    let status: FileResult['status'] = child.status === 0 ? 'ok' : 'failed';
    try {
      metrics = JSON.parse(readFileSync(json, 'utf8')) as BenchMetric[];
    } catch {
      if (status === 'ok') status = 'no-metrics';
    }
    if (status !== 'ok') process.stderr.write(`bench/${name}.ts: ${status} (exit ${child.status ?? child.signal})\n`);
    results.push({ file: `bench/${name}.ts`, seconds, status, metrics });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const metrics = results.flatMap((r) => r.metrics.map((m) => ({ ...m, metric: `${r.file.slice('bench/'.length, -'.ts'.length)}: ${m.metric}` })));
console.log(`\nfogbank benchmarks, ${options.rounds} rounds each, baselines interleaved (node ${process.version}, ${cpus().length} cpus)`);
console.log(formatTable(metrics));
const failed = results.filter((r) => r.status !== 'ok');
if (failed.length > 0) console.log(`\nwithout metrics: ${failed.map((r) => `${r.file} (${r.status})`).join(', ')}`);
const metCount = metrics.filter((m) => m.met === true).length;
const goalCount = metrics.filter((m) => m.met !== null).length;
console.log(`\ngoals met: ${metCount} of ${goalCount}`);

const cpuList = cpus();
const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
const report = {
  date: started.toISOString(),
  finished: new Date().toISOString(),
  commit: git(['rev-parse', 'HEAD']) + (dirty ? '+dirty' : ''),
  node: process.version,
  machine: {
    platform: process.platform,
    arch: process.arch,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    loadavgBefore: loadBefore,
    loadavgAfter: loadavg(),
  },
  options: { rounds: options.rounds, quick: options.quick, only },
  files: results,
};
// A subset run does not overwrite the full results: it goes beside them.
const out = join(BENCH_DIR, only.length === 0 ? 'results.json' : 'results.partial.json');
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${out.slice(ROOT.length)}`);
if (failed.length > 0) process.exitCode = 1;
