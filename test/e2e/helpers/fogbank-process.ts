import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/** FogbankProcess is `fogbank start` running as a separate process, as users run it. */
export interface FogbankProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** exited resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
}

/**
 * startFogbankProcess runs `fogbank start ARGS` and resolves once it prints its `listening on`
 * line. By default it runs the TypeScript sources; `entry` names another script (the bundle).
 */
export function startFogbankProcess(args: readonly string[], entry?: string): Promise<FogbankProcess> {
  const command = entry === undefined ? ['--import', 'tsx', MAIN] : [entry];
  const child = spawn(process.execPath, [...command, 'start', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const reader = createInterface({ input: child.stdout! });
    reader.on('line', (line) => {
      lines.push(line);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match !== null) resolve({ url: match[1]!, child, lines, exited });
    });
    void exited.then((code) => reject(new Error(`fogbank exited (${code}) before listening:\n${stderr}`)));
  });
}
