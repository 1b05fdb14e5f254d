import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

export { BARE_SERVER, type Started, startProcess } from '../../src/testing/server-process.ts';

/** ROOT is the repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

/** median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
