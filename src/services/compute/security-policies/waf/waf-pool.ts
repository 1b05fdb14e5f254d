/**
 * The threads that run the WAF engine (waf-worker.ts), so that no request's inspection holds the
 * event loop: the Core Rule Set costs milliseconds for a GET and from hundreds of milliseconds to
 * seconds for a 64 KB body with every set loaded (docs/compute.md, "Cost"; bench/waf-engine.ts).
 *
 * Bounded: at most `workers` threads, started on first need and ended after `idleMs` without work
 * (unless warmed: warm() keeps them, loaded); at most `queueLimit` jobs waiting, each at most
 * `waitMs` when given; each job answered within `deadlineMs` of a thread taking it, its
 * configurations' load aside. A job past its deadline is answered with WafEngineTimeoutError and
 * its thread ended (ModSecurity cannot be interrupted; the thread goes once the call returns, and
 * the next job gets a fresh one; at most `workers` may be ending at once), so a hostile body costs
 * one request its WAF verdict, never the guard its answers. An ended thread's rules sets are freed
 * here once it exited, and the rules-load lock if it held it.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type EngineRequest, freeRulesAt } from './modsecurity.ts';
import { processRulesLoadLock, type RulesLoadLock, releaseRulesLoadLockOf } from './rules-load-lock.ts';
import { type ConfigRef, RULE_SETS_KEPT, type WafJob, type WafReply, type WafWarm, type WafWorkerData } from './waf-protocol.ts';

/** WafPoolOptions size the pool. */
export interface WafPoolOptions {
  readonly workers?: number;
  readonly queueLimit?: number;
  /** deadlineMs bounds one request's inspection, from the moment a thread takes it (its configurations' load aside). */
  readonly deadlineMs?: number;
  /** waitMs, when given, bounds how long a request waits for a thread (unbounded otherwise: a batch of what-if requests queues). */
  readonly waitMs?: number;
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
  timer?: NodeJS.Timeout | undefined;
  /** waitTimer bounds the job's wait for a thread (waitMs). */
  waitTimer?: NodeJS.Timeout | undefined;
}

interface Thread {
  readonly worker: Worker;
  /** threadId is the worker's id, kept for its exit (the rules-load lock names its holder by it). */
  readonly threadId: number;
  /** ready: the thread has loaded the engine and takes jobs. */
  ready: boolean;
  job: Job | undefined;
  /** warming is the warm-up generation the thread is loading now. */
  warming: number | undefined;
  /** warmed is the newest warm-up generation the thread has loaded (0: none). */
  warmed: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** Warm is the pool's warm-up: configurations every thread loads before it takes a job. */
interface Warm {
  readonly generation: number;
  readonly configs: readonly ConfigRef[];
}

/** WarmWaiter is a warm() waiting for every thread to load its generation. */
interface WarmWaiter {
  readonly generation: number;
  readonly resolve: () => void;
}

/** WafPool runs inspections on worker threads. */
export class WafPool {
  readonly #workers: number;
  readonly #queueLimit: number;
  readonly #deadlineMs: number;
  readonly #idleMs: number;
  readonly #waitMs: number | undefined;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  readonly #rulesLoadLock: RulesLoadLock = processRulesLoadLock();
  #warm: Warm | undefined;
  readonly #warmWaiters: WarmWaiter[] = [];
  /** ending counts threads told to end that have not exited yet: inside ModSecurity, they still burn a core. */
  #ending = 0;
  #nextId = 0;
  #closed = false;

  constructor(options: WafPoolOptions = {}) {
    this.#workers = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.#queueLimit = options.queueLimit ?? 1024;
    this.#deadlineMs = options.deadlineMs ?? WAF_DEADLINE_MS;
    this.#idleMs = options.idleMs ?? 30_000;
    this.#waitMs = options.waitMs;
  }

  /** workers is how many threads the pool runs at most. */
  get workers(): number {
    return this.#workers;
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
      if (this.#waitMs !== undefined) job.waitTimer = setTimeout(() => this.#expireWaiting(job), this.#waitMs);
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /**
   * warm has every thread of the pool (all `workers` of them, started now) load `configs` before
   * it takes another job, and resolves once they all have: what a server announcing itself ready
   * awaits. The threads load one after another (the rules-load lock). From then on the pool keeps
   * its threads (no idle end), and a thread that replaces one (after a deadline) loads `configs`
   * before its first job. A later warm replaces the configurations. A load that fails is left for
   * the inspections to report.
   */
  warm(configs: readonly ConfigRef[]): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const generation = (this.#warm?.generation ?? 0) + 1;
    this.#warm = { generation, configs };
    for (const thread of this.#threads) {
      clearTimeout(thread.idleTimer);
      thread.idleTimer = undefined;
    }
    while (this.#canStart()) this.#start();
    const warmed = new Promise<void>((resolve) => this.#warmWaiters.push({ generation, resolve }));
    this.#dispatch();
    this.#checkWarm();
    return warmed;
  }

  /** close ends every thread, failing what was in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) this.#settle(job, () => job.reject(new WafEngineError('the WAF engine pool was closed')));
    this.#checkWarm();
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
    if (this.#closed) return;
    const warm = this.#warm;
    if (warm !== undefined) {
      // A thread behind the warm-up loads it before it takes a job.
      for (const thread of this.#threads) {
        if (!thread.ready || busy(thread) || thread.warmed >= warm.generation) continue;
        thread.warming = warm.generation;
        clearTimeout(thread.idleTimer);
        thread.idleTimer = undefined;
        const message: WafWarm = { warm: warm.generation, configs: warm.configs };
        thread.worker.postMessage(message);
      }
    }
    while (this.#queue.length > 0) {
      const idle = [...this.#threads].find((thread) => thread.ready && !busy(thread));
      if (idle === undefined) {
        if (this.#canStart()) this.#start();
        return;
      }
      const job = this.#queue.shift() as Job;
      clearTimeout(job.waitTimer);
      // The deadline runs from the moment a ready thread takes the job: it bounds the engine's work.
      job.timer = setTimeout(() => this.#expire(job), this.#deadlineMs);
      clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      idle.job = job;
      idle.worker.postMessage(job.message);
    }
  }

  #start(): Thread {
    const rulesSlots = new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT * (RULE_SETS_KEPT + 1)));
    const worker = startWorker({ rulesLoadLock: this.#rulesLoadLock, rulesSlots });
    const thread: Thread = { worker, threadId: worker.threadId, ready: false, job: undefined, warming: undefined, warmed: 0, idleTimer: undefined };
    worker.unref();
    worker.on('message', (reply: WafReply) => this.#heard(thread, reply));
    const gone = (why: string): void => {
      if (!this.#threads.delete(thread)) return;
      const job = thread.job;
      thread.job = undefined;
      if (job !== undefined) this.#settle(job, () => job.reject(new WafEngineError(`the WAF engine thread ended (${why})`)));
      // A warm pool keeps its threads: one that had started is replaced (one that never did is not, so a broken start cannot loop).
      if (thread.ready) this.#replaceIfWarm();
      this.#checkWarm();
      this.#dispatch();
    };
    worker.on('error', (error) => gone(error.message));
    worker.on('exit', (code) => {
      // A thread ended inside a load (terminate() skips its finally) leaves the lock held: free it.
      releaseRulesLoadLockOf(this.#rulesLoadLock, thread.threadId);
      // Its rules sets are nobody's now: freed here (terminate() ran no cleanup in the thread).
      for (const [slot, address] of rulesSlots.entries()) {
        if (address === 0n) continue;
        rulesSlots[slot] = 0n;
        freeRulesAt(address);
      }
      gone(`exit code ${code}`);
    });
    this.#threads.add(thread);
    return thread;
  }

  #heard(thread: Thread, reply: WafReply): void {
    if ('ready' in reply) {
      thread.ready = true;
      this.#dispatch();
      return;
    }
    if ('warmed' in reply) {
      thread.warming = undefined;
      thread.warmed = Math.max(thread.warmed, reply.warmed);
      this.#checkWarm();
      this.#idle(thread);
      this.#dispatch();
      return;
    }
    const job = thread.job;
    if (job === undefined || job.message.id !== reply.id) return;
    if ('loading' in reply) {
      // Loading a configuration does not depend on the request: the deadline waits for it.
      clearTimeout(job.timer);
      job.timer = undefined;
      return;
    }
    if ('loaded' in reply) {
      job.timer = setTimeout(() => this.#expire(job), this.#deadlineMs);
      return;
    }
    thread.job = undefined;
    if ('failure' in reply) {
      const error = reply.missing === true ? new WafEngineUnavailableError(reply.failure) : new WafEngineError(reply.failure);
      this.#settle(job, () => job.reject(error));
    } else this.#settle(job, () => job.resolve(reply));
    this.#idle(thread);
    this.#dispatch();
  }

  /** idle starts a free thread's idle countdown; a warm pool keeps its threads. */
  #idle(thread: Thread): void {
    if (this.#warm !== undefined || busy(thread) || this.#closed) return;
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => void this.#end(thread), this.#idleMs);
    thread.idleTimer.unref();
  }

  #replaceIfWarm(): void {
    if (this.#warm !== undefined && !this.#closed && this.#canStart()) this.#start();
  }

  /**
   * canStart: fewer than `workers` threads, and fewer than `workers` more still ending. A thread
   * ended past its deadline runs on inside ModSecurity until the call returns (a hostile 64 KB
   * body can take it a minute): its replacement starts at once, but hostile requests cannot pile
   * up more than 2 × `workers` threads burning cores; past that, jobs wait for one to exit.
   */
  #canStart(): boolean {
    return this.#threads.size < this.#workers && this.#threads.size + this.#ending < 2 * this.#workers;
  }

  /** checkWarm resolves the warm-ups every thread has loaded (all of them, when the pool closed). */
  #checkWarm(): void {
    const threads = [...this.#threads];
    for (let i = this.#warmWaiters.length - 1; i >= 0; i--) {
      const waiter = this.#warmWaiters[i] as WarmWaiter;
      if (!this.#closed && threads.some((thread) => thread.warmed < waiter.generation)) continue;
      this.#warmWaiters.splice(i, 1);
      waiter.resolve();
    }
  }

  #expire(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) this.#queue.splice(queued, 1);
    for (const thread of this.#threads) {
      if (thread.job !== job) continue;
      // The thread is inside ModSecurity: let it go, and give the next job a fresh one.
      thread.job = undefined;
      void this.#end(thread);
      this.#replaceIfWarm();
    }
    job.reject(new WafEngineTimeoutError(`the WAF engine did not finish within ${this.#deadlineMs} ms`));
    this.#checkWarm();
    this.#dispatch();
  }

  #expireWaiting(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued === -1) return;
    this.#queue.splice(queued, 1);
    job.reject(new WafEngineBusyError(`no WAF engine thread was free within ${this.#waitMs} ms`));
  }

  #settle(job: Job, answer: () => void): void {
    clearTimeout(job.timer);
    clearTimeout(job.waitTimer);
    answer();
  }

  async #end(thread: Thread): Promise<void> {
    clearTimeout(thread.idleTimer);
    if (!this.#threads.delete(thread)) return;
    this.#ending++;
    try {
      // Resolves once the thread has exited: after the ModSecurity call it was inside returns.
      await thread.worker.terminate();
    } finally {
      this.#ending--;
      this.#replaceIfWarm();
      this.#dispatch();
    }
  }
}

/** busy: the thread is running a job or loading a warm-up. */
function busy(thread: Thread): boolean {
  return thread.job !== undefined || thread.warming !== undefined;
}

/**
 * startWorker starts waf-worker beside this module, in the form this module runs in: the bundle's
 * `dist/chunks/waf-worker.mjs` (an entry point of scripts/bundle-options.mjs), tsc's `.js`, or the
 * TypeScript source under tsx (Node 20 runs no `--import` in worker threads, so the thread
 * registers tsx itself), as core/yaml-worker-pool.ts does.
 */
function startWorker(workerData: WafWorkerData): Worker {
  const extension = /\.[cm]?[jt]s$/.exec(new URL(import.meta.url).pathname)?.[0] ?? '.js';
  const entry = new URL(`./waf-worker${extension}`, import.meta.url);
  if (extension !== '.ts') return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`, {
    eval: true,
    workerData,
  });
}
