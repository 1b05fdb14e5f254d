/**
 * The threads that run the WAF engine (waf-worker.ts), so that no request's inspection holds the
 * event loop: the Core Rule Set costs about a millisecond for a GET and hundreds for a 64 KB body
 * with every set loaded (shared/reference/cloud-armor-waf.md §6).
 *
 * Bounded: at most `workers` threads, started on first need and ended after `idleMs` without work;
 * at most `queueLimit` jobs waiting; each job answered within `deadlineMs` of a thread taking it.
 * A job past its deadline is answered with WafEngineTimeoutError and its thread ended (ModSecurity
 * cannot be interrupted; the thread goes once the call returns, and the next job gets a fresh one),
 * so a hostile body costs one request its WAF verdict, never the guard its answers.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EngineRequest } from './modsecurity.ts';
import type { ConfigRef, WafJob, WafReply } from './waf-protocol.ts';

/** WafPoolOptions size the pool. */
export interface WafPoolOptions {
  readonly workers?: number;
  readonly queueLimit?: number;
  /** deadlineMs bounds one request's inspection, from the moment a thread takes it. */
  readonly deadlineMs?: number;
  readonly idleMs?: number;
}

/** WAF_DEADLINE_MS is the default bound of one inspection (a 64 KB JSON body with every set costs ~500 ms on 2 cores). */
export const WAF_DEADLINE_MS = 2000;

/** WafEngineError is an inspection that did not complete. */
export class WafEngineError extends Error {
  override readonly name: string = 'WafEngineError';
}
/** WafEngineTimeoutError is an inspection past its deadline. */
export class WafEngineTimeoutError extends WafEngineError {
  override readonly name = 'WafEngineTimeoutError';
}
/** WafEngineBusyError is a full queue. */
export class WafEngineBusyError extends WafEngineError {
  override readonly name = 'WafEngineBusyError';
}
/** WafEngineUnavailableError is libmodsecurity3 (or koffi) not loadable: a loud failure, never a silent no-match. */
export class WafEngineUnavailableError extends WafEngineError {
  override readonly name = 'WafEngineUnavailableError';
}

/** Answer is a finished job's reply, without its id. */
export type Answer = Extract<WafReply, { header: unknown }>;

interface Job {
  readonly message: WafJob;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Thread {
  readonly worker: Worker;
  /** ready: the thread has loaded the engine and takes jobs. */
  ready: boolean;
  job: Job | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** WafPool runs inspections on worker threads. */
export class WafPool {
  readonly #workers: number;
  readonly #queueLimit: number;
  readonly #deadlineMs: number;
  readonly #idleMs: number;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: WafPoolOptions = {}) {
    this.#workers = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.#queueLimit = options.queueLimit ?? 1024;
    this.#deadlineMs = options.deadlineMs ?? WAF_DEADLINE_MS;
    this.#idleMs = options.idleMs ?? 30_000;
  }

  /** deadlineMs is the bound of one inspection. */
  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  /** run inspects `request` under `configs`. */
  run(configs: readonly ConfigRef[], request: EngineRequest): Promise<Answer> {
    if (this.#closed) return Promise.reject(new WafEngineError('the WAF engine pool is closed'));
    if (this.#queue.length >= this.#queueLimit) {
      return Promise.reject(new WafEngineBusyError(`${this.#queue.length} inspections are waiting for the WAF engine`));
    }
    return new Promise<Answer>((resolve, reject) => {
      const job: Job = { message: { id: this.#nextId++, configs, request }, resolve, reject };
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** close ends every thread, failing what was in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) this.#settle(job, () => job.reject(new WafEngineError('the WAF engine pool was closed')));
    await Promise.all(
      [...this.#threads].map((thread) => {
        if (thread.job !== undefined) {
          const job = thread.job;
          this.#settle(job, () => job.reject(new WafEngineError('the WAF engine pool was closed')));
        }
        return this.#end(thread);
      }),
    );
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const idle = [...this.#threads].find((thread) => thread.ready && thread.job === undefined);
      if (idle === undefined) {
        if (this.#threads.size < this.#workers) this.#start();
        return;
      }
      const job = this.#queue.shift() as Job;
      // The deadline runs from the moment a ready thread takes the job: it bounds the engine's work.
      job.timer = setTimeout(() => this.#expire(job), this.#deadlineMs);
      clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      idle.job = job;
      idle.worker.postMessage(job.message);
    }
  }

  #start(): Thread {
    const thread: Thread = { worker: startWorker(), ready: false, job: undefined, idleTimer: undefined };
    thread.worker.unref();
    thread.worker.on('message', (reply: WafReply) => {
      if ('ready' in reply) {
        thread.ready = true;
        this.#dispatch();
        return;
      }
      const job = thread.job;
      thread.job = undefined;
      if (job !== undefined && job.message.id === reply.id) {
        if ('failure' in reply) {
          const error = reply.missing === true ? new WafEngineUnavailableError(reply.failure) : new WafEngineError(reply.failure);
          this.#settle(job, () => job.reject(error));
        } else this.#settle(job, () => job.resolve(reply));
      }
      thread.idleTimer = setTimeout(() => void this.#end(thread), this.#idleMs);
      thread.idleTimer.unref();
      this.#dispatch();
    });
    const gone = (why: string): void => {
      if (!this.#threads.delete(thread)) return;
      const job = thread.job;
      thread.job = undefined;
      if (job !== undefined) this.#settle(job, () => job.reject(new WafEngineError(`the WAF engine thread ended (${why})`)));
      this.#dispatch();
    };
    thread.worker.on('error', (error) => gone(error.message));
    thread.worker.on('exit', (code) => gone(`exit code ${code}`));
    this.#threads.add(thread);
    return thread;
  }

  #expire(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) this.#queue.splice(queued, 1);
    for (const thread of this.#threads) {
      if (thread.job !== job) continue;
      // The thread is inside ModSecurity: let it go, and give the next job a fresh one.
      thread.job = undefined;
      void this.#end(thread);
    }
    job.reject(new WafEngineTimeoutError(`the WAF engine did not finish within ${this.#deadlineMs} ms`));
    this.#dispatch();
  }

  #settle(job: Job, answer: () => void): void {
    clearTimeout(job.timer);
    answer();
  }

  async #end(thread: Thread): Promise<void> {
    clearTimeout(thread.idleTimer);
    this.#threads.delete(thread);
    await thread.worker.terminate();
  }
}

/**
 * startWorker starts waf-worker beside this module, in the form this module runs in: the bundle's
 * `dist/chunks/waf-worker.mjs` (an entry point of scripts/bundle-options.mjs), tsc's `.js`, or the
 * TypeScript source under tsx (Node 20 runs no `--import` in worker threads, so the thread
 * registers tsx itself), as core/yaml-worker-pool.ts does.
 */
function startWorker(): Worker {
  const extension = /\.[cm]?[jt]s$/.exec(new URL(import.meta.url).pathname)?.[0] ?? '.js';
  const entry = new URL(`./waf-worker${extension}`, import.meta.url);
  if (extension !== '.ts') return new Worker(entry);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`, { eval: true });
}
