import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RegisteredRoute } from '../../src/core/route-registry.ts';

/** ServerState is what the fuzzed process says of itself between requests. */
export interface ServerState {
  readonly revision: number;
  /** Names on Object.prototype that were not there at start (prototype pollution). */
  readonly polluted: readonly string[];
  /** CPU time the process has used, in milliseconds. */
  readonly cpuMs: number;
}

const CHILD = fileURLToPath(new URL('./server-child.ts', import.meta.url));

/**
 * FuzzServer runs the fuzzed fogbank in a child process (server-child.ts) and starts a new one
 * when it dies: a crash is counted, not the end of the run. `generation` grows with each start,
 * so a request can tell whether the process it was sent to is gone.
 */
export class FuzzServer {
  private child: ChildProcess | undefined;
  private pending = new Map<number, (reply: Record<string, unknown> | undefined) => void>();
  private next = 0;
  port = 0;
  routes: readonly RegisteredRoute[] = [];
  generation = 0;
  /** exitCodes lists how each process that died ended (code or signal), for the report. */
  readonly deaths: string[] = [];

  /** start forks a fresh fogbank and resolves once it listens with its state seeded. */
  async start(): Promise<void> {
    const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    this.child = child;
    this.generation++;
    await new Promise<void>((resolve, reject) => {
      const early = (code: number | null, signal: string | null): void => reject(new Error(`the fuzzed server did not start (${signal ?? code}): ${stderr}`));
      child.once('exit', early);
      child.on('message', (message: { ready?: boolean; port?: number; routes?: RegisteredRoute[]; id?: number }) => {
        if (message.ready === true) {
          this.port = message.port!;
          this.routes = message.routes!;
          child.off('exit', early);
          child.once('exit', (code, signal) => {
            this.deaths.push(`${signal ?? `exit ${code}`}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
            if (this.child === child) this.child = undefined;
            for (const [, settle] of this.pending) settle(undefined);
            this.pending.clear();
          });
          resolve();
        } else if (message.id !== undefined) {
          this.pending.get(message.id)?.(message);
          this.pending.delete(message.id);
        }
      });
    });
  }

  /** pid is the current process's id (for the /healthz probe's CPU reading), undefined before the first start. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** alive is true while the current process runs. */
  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** state asks the process for its store revision and prototype check; undefined when it is gone. */
  async state(): Promise<ServerState | undefined> {
    const reply = await this.ask({ kind: 'state' });
    return reply === undefined
      ? undefined
      : { revision: reply['revision'] as number, polluted: reply['polluted'] as string[], cpuMs: reply['cpuMs'] as number };
  }

  /** kindsChanged lists the store kinds written after `from` up to `to`, as the process reports them. */
  async kindsChanged(from: number, to: number): Promise<readonly string[] | undefined> {
    const reply = await this.ask({ kind: 'changes', from, to });
    return reply === undefined ? undefined : (reply['kinds'] as string[]);
  }

  private ask(message: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const child = this.child;
    if (child === undefined || !child.connected) return Promise.resolve(undefined);
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      child.send({ id, ...message }, (error) => {
        if (error !== null && this.pending.delete(id)) resolve(undefined);
      });
    });
  }

  /** stop ends the current process and waits for it. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    if (child.connected) child.disconnect();
    else child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }
}
