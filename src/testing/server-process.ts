// Server processes for benchmarks and tests: a command started as its own node process, known
// ready by the `listening on URL` line it prints (as fogbank's ready line and the bare baseline
// print it). Shared by bench/ (its baselines) and the fuzzer (its heartbeat beside fogbank).
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** ROOT is the repository root, every process's working directory. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** BARE_SERVER is the baseline every HTTP benchmark compares against: `node bare-http-server.mjs` (a bare node:http JSON server). */
export const BARE_SERVER = [fileURLToPath(new URL('./bare-http-server.mjs', import.meta.url))];

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
