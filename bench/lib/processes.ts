import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

/** ROOT is the repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Started is a server process that has printed its `listening on` line. */
export interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the `listening on` line. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/**
 * startProcess spawns `node ARGS` and resolves once it prints `listening on URL`. With
 * `BENCH_CPU_PROF=DIR` in the environment the server writes a V8 CPU profile into DIR when it stops.
 */
export function startProcess(args: readonly string[]): Promise<Started> {
  const began = performance.now();
  const profileDir = process.env['BENCH_CPU_PROF'];
  const profile = profileDir === undefined || profileDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(process.execPath, [...profile, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    const reader = createInterface({ input: child.stdout! });
    reader.on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match === null) return;
      resolve({
        url: match[1]!,
        child,
        readyMs: performance.now() - began,
        stop: async () => {
          child.kill('SIGTERM');
          await closed;
        },
      });
    });
    void closed.then(() => reject(new Error(`node ${args.join(' ')} exited before listening`)));
  });
}

/** rssMb reads a process's resident set size from /proc, in MiB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return kb / 1024;
}

/** cpuMs reads the CPU time (user + system) a process has used so far, from /proc, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

// USER_HZ, the unit of the times in /proc: 100 on every Linux this runs on.
const CLOCK_TICKS = 100;

/**
 * ensureBuilt bundles the CLI (as `npm start` does before it runs), so benchmarks measure what users
 * run; under bench/run-all.ts (BENCH_BUILT=1), which built it once already, it only names the bundle.
 */
export function ensureBuilt(): string {
  if (process.env['BENCH_BUILT'] !== '1') execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  return `${ROOT}dist/fogbank.mjs`;
}

/** BARE_SERVER is the baseline server (plain JavaScript, no loader): the arguments to `node`. */
export const BARE_SERVER = [fileURLToPath(new URL('./bare-http-server.mjs', import.meta.url))];

/** median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
