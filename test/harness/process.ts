// `fogbank start` (or any command) as a separate process, as users run it. The harness owns
// every child: each wait is bounded, and whatever still runs when the test file ends is killed.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { onTestProcessExit } from '../../src/testing/exit.ts';
import { REPO } from './paths.ts';
import { tempDir } from '../../src/testing/temp.ts';

/** MAIN is the CLI entry in TypeScript, run through tsx. */
const MAIN = join(REPO, 'src/cli/main.ts');

/** READY_TIMEOUT_MS bounds the wait for a `listening on` line. */
const READY_TIMEOUT_MS = 30_000;
/** EXIT_TIMEOUT_MS bounds the wait for a process to end after a signal. */
const EXIT_TIMEOUT_MS = 15_000;

const children = new Set<ChildProcess>();

onTestProcessExit(() => {
  for (const child of children) {
    try {
      // Detached children lead their own process group: end the group (npm and its node child).
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
  children.clear();
});

/** Exit is how a process ended: its exit code, or the signal's name. */
export type Exit = number | NodeJS.Signals;

/** Spawned is a child process with its output collected and a bounded way to wait for it. */
export interface Spawned {
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** stderr so far. */
  stderr(): string;
  /** exited resolves with the exit code (or the signal's name). */
  readonly exited: Promise<Exit>;
  /** waitForLine resolves with the first stdout line matching, failing after `timeoutMs` or if the process ends first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** stop sends a signal (to the whole process group when detached) and resolves with how the process ended, within a bound. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** withTimeout rejects with `what` when the promise does not settle in time. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** spawnOwned starts a command whose lifetime the harness owns; `detached` gives it its own process group (a terminal's Ctrl-C reaches the whole group). */
export function spawnOwned(command: string, args: readonly string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const reader = createInterface({ input: child.stdout! });
  const waiters = new Set<() => void>();
  reader.on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  let ended = false;
  const exited = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true;
      children.delete(child);
      resolve(code ?? signal ?? 'SIGKILL');
      for (const wake of waiters) wake();
    }),
  );
  const detached = options.detached === true;
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine(pattern, timeoutMs = READY_TIMEOUT_MS) {
      return withTimeout(
        new Promise<RegExpExecArray>((resolve, reject) => {
          const check = (): void => {
            for (const line of lines) {
              const match = pattern.exec(line);
              if (match !== null) {
                waiters.delete(check);
                resolve(match);
                return;
              }
            }
            if (ended) {
              waiters.delete(check);
              reject(
                new Error(
                  `${command} ${args.join(' ')} ended (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${lines.join('\n')}\n${stderr}`,
                ),
              );
            }
          };
          waiters.add(check);
          check();
        }),
        timeoutMs,
        `${pattern} from ${command} ${args.join(' ')}\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
      );
    },
    async stop(signal = 'SIGTERM') {
      if (!ended && child.pid !== undefined) {
        if (detached) process.kill(-child.pid, signal);
        else child.kill(signal);
      }
      return withTimeout(exited, EXIT_TIMEOUT_MS, `${command} to exit after ${signal}`).catch(async (error: unknown) => {
        if (child.pid !== undefined) process.kill(detached ? -child.pid : child.pid, 'SIGKILL');
        await exited;
        throw error;
      });
    },
  };
}

/** FogbankProcess is `fogbank start` running as its own process, once it is listening. */
export interface FogbankProcess extends Spawned {
  /** The base URL from the `listening on` line. */
  readonly url: string;
}

/** FogbankProcessOptions choose what runs: the TypeScript sources (default) or another entry such as a bundle; and the environment. */
export interface FogbankProcessOptions {
  readonly entry?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly uid?: number;
  readonly gid?: number;
  /** A command that runs node with fogbank, as `setpriv …` (its words, before node's path). */
  readonly wrapper?: readonly string[];
}

/** spawnFogbank runs `fogbank ARGS` (any command) and returns at once. */
export function spawnFogbank(args: readonly string[], options: FogbankProcessOptions = {}): Spawned {
  const command = options.entry === undefined ? ['--import', 'tsx', MAIN] : [options.entry];
  const env = options.env ?? process.env;
  const [program, ...words] = [...(options.wrapper ?? []), process.execPath, ...command, ...args] as [string, ...string[]];
  return spawnOwned(program, words, {
    cwd: REPO,
    // Its temporary files (an --ephemeral server's upload spools) go where the harness removes
    // them, even when the test ends the process with SIGKILL and it cannot clean up itself.
    env: { ...env, TMPDIR: env['TMPDIR'] !== undefined && env['TMPDIR'] !== process.env['TMPDIR'] ? env['TMPDIR'] : tempDir('process-tmp') },
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
}

/**
 * startFogbankProcess runs `fogbank start ARGS` and resolves once it prints its `listening on`
 * line (bounded); it rejects with fogbank's output if it exits first.
 */
export async function startFogbankProcess(args: readonly string[], options: FogbankProcessOptions = {}): Promise<FogbankProcess> {
  const spawned = spawnFogbank(['start', ...args], options);
  const match = await spawned.waitForLine(/listening on (http:\/\/\S+)/);
  return { ...spawned, url: match[1]! };
}

/** runToEnd runs a command to completion (bounded) and resolves with its exit and output. */
export async function runToEnd(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
  timeoutMs = 60_000,
): Promise<{ exit: Exit; stdout: string; stderr: string }> {
  const spawned = spawnOwned(command, args, options);
  const exit = await withTimeout(spawned.exited, timeoutMs, `${command} ${args.join(' ')}`).catch(async (error: unknown) => {
    await spawned.stop('SIGKILL');
    throw error;
  });
  return { exit, stdout: spawned.lines.join('\n') + (spawned.lines.length > 0 ? '\n' : ''), stderr: spawned.stderr() };
}
