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

/** startProcess spawns `node ARGS` and resolves once it prints `listening on URL`. */
export function startProcess(args: readonly string[]): Promise<Started> {
  const began = performance.now();
  const child = spawn(process.execPath, [...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** ensureBuilt bundles the CLI (as `npm start` does before it runs), so benchmarks measure what users run. */
export function ensureBuilt(): string {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
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
