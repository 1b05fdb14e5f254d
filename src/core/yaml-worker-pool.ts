/**
 * The worker threads that decode large YAML bodies (yaml-body.ts sends them here), so that no body
 * holds the event loop: the `yaml` library spends seconds on a megabyte, and every request of
 * every family would wait that long.
 *
 * Bounded everywhere: at most `workers` threads, started on first need and ended after `idleMs`
 * without work (start-up time and idle memory); at most `queueLimit` bodies waiting, each for at
 * most the deadline; a body that takes longer than the deadline ends its thread (the next body
 * gets a fresh one); a thread's heap is capped, so a body that needs more memory ends that thread
 * and not the process; and close() ends every thread at once, answering what was in flight.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { YAML_DEADLINE_MS, type YamlBodyOptions } from './yaml-body.ts';
import { YamlBusyError, YamlDecodeLimitError, YamlDecoderFailure } from './yaml-errors.ts';
import { replyValue, type YamlWorkerReply, type YamlWorkerRequest } from './yaml-worker-protocol.ts';

/** YAML_WORKER_HEAP_MB caps a decoding thread's heap: a 1 MiB body peaks near 100 MB (60,000 keys) to 200 MB (a 250,000-item sequence). */
export const YAML_WORKER_HEAP_MB = 512;

/** A body waiting for, or being decoded by, a thread. */
interface Job {
  readonly id: number;
  readonly text: string;
  readonly deadlineMs: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** The deadline: of the wait while queued, then of the decoding. */
  timer?: NodeJS.Timeout;
}

/** A worker thread and the body it decodes, if any. */
interface Thread {
  readonly worker: Worker;
  job: Job | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** YamlWorkerPool decodes YAML bodies on worker threads (yaml-worker.ts), within a deadline. */
export class YamlWorkerPool {
  readonly #workers: number;
  readonly #queueLimit: number;
  readonly #deadlineMs: number;
  readonly #idleMs: number;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: YamlBodyOptions = {}) {
    this.#workers = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.#queueLimit = options.queueLimit ?? 8;
    this.#deadlineMs = options.deadlineMs ?? YAML_DEADLINE_MS;
    this.#idleMs = options.idleMs ?? 30_000;
  }

  /** threadCount is how many threads are running now. */
  get threadCount(): number {
    return this.#threads.size;
  }

  /**
   * parse decodes `text` on a thread: the value, the body's typed refusal (as yamlBodyParser
   * throws it), YamlDecodeLimitError past the deadline (`deadlineMs`, the pool's unless given) or
   * the heap cap, YamlBusyError when too many bodies wait or the pool is closed.
   */
  parse(text: string, deadlineMs: number = this.#deadlineMs): Promise<unknown> {
    if (this.#closed) return Promise.reject(new YamlBusyError('closing'));
    if (this.#queue.length >= this.#queueLimit && this.#freeThread() === undefined && this.#threads.size >= this.#workers)
      return Promise.reject(new YamlBusyError('queue-full'));
    return new Promise((resolve, reject) => {
      const job: Job = { id: ++this.#nextId, text, deadlineMs, resolve, reject };
      // A body that finds no thread within its deadline is refused as a full queue would refuse it.
      job.timer = setTimeout(() => {
        this.#queue.splice(this.#queue.indexOf(job), 1);
        reject(new YamlBusyError('queue-full'));
      }, deadlineMs);
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** close refuses queued and in-flight bodies (the server is closing) and ends every thread. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) settle(job, () => job.reject(new YamlBusyError('closing')));
    const ending: Promise<unknown>[] = [];
    for (const thread of this.#threads) {
      const job = thread.job;
      if (job !== undefined) settle(job, () => job.reject(new YamlBusyError('closing')));
      ending.push(this.#end(thread));
    }
    await Promise.all(ending);
  }

  /** Hands queued bodies to free threads, starting threads up to the limit. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      const thread = this.#freeThread() ?? (this.#threads.size < this.#workers ? this.#start() : undefined);
      if (thread === undefined) return;
      this.#run(thread, this.#queue.shift()!);
    }
  }

  #freeThread(): Thread | undefined {
    for (const thread of this.#threads) if (thread.job === undefined) return thread;
    return undefined;
  }

  #run(thread: Thread, job: Job): void {
    clearTimeout(job.timer);
    clearTimeout(thread.idleTimer);
    thread.job = job;
    // The deadline counts a fresh thread's start (tens of milliseconds) too: a thread that never
    // starts must not leave the request unanswered.
    job.timer = setTimeout(() => {
      if (thread.job !== job) return;
      thread.job = undefined;
      job.reject(
        new YamlDecodeLimitError(`decoding took longer than ${durationText(job.deadlineMs)}, fogbank's limit for a YAML body (JSON bodies have none)`),
      );
      void this.#end(thread);
      this.#dispatch();
    }, job.deadlineMs);
    thread.worker.ref();
    const request: YamlWorkerRequest = { id: job.id, text: job.text };
    thread.worker.postMessage(request);
  }

  #start(): Thread {
    const thread: Thread = { worker: startWorker(), job: undefined, idleTimer: undefined };
    const { worker } = thread;
    // An idle thread does not keep the process alive; one decoding does (see #run).
    worker.unref();
    worker.on('message', (reply: YamlWorkerReply) => {
      const job = thread.job;
      if (job === undefined || reply.id !== job.id) return;
      thread.job = undefined;
      worker.unref();
      thread.idleTimer = setTimeout(() => void this.#end(thread), this.#idleMs).unref();
      settle(job, () => {
        try {
          job.resolve(replyValue(reply));
        } catch (error) {
          job.reject(error as Error);
        }
      });
      this.#dispatch();
    });
    const failed = (error: Error): void => {
      if (!this.#threads.delete(thread)) return;
      clearTimeout(thread.idleTimer);
      const job = thread.job;
      thread.job = undefined;
      if (job !== undefined) {
        const outOfMemory = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
        settle(job, () =>
          job.reject(
            outOfMemory
              ? new YamlDecodeLimitError(`decoding needed more than ${YAML_WORKER_HEAP_MB} MB, fogbank's limit for a YAML body`)
              : new YamlDecoderFailure(`the YAML decoding thread failed: ${error.message}`),
          ),
        );
      }
      this.#dispatch();
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new Error(`it exited with code ${code}`)));
    this.#threads.add(thread);
    return thread;
  }

  /** Ends a thread that is no longer wanted (idle, past its deadline, or closing). */
  #end(thread: Thread): Promise<number> {
    this.#threads.delete(thread);
    clearTimeout(thread.idleTimer);
    return thread.worker.terminate();
  }
}

/** settle stops a job's deadline, then answers it. */
function settle(job: Job, answer: () => void): void {
  clearTimeout(job.timer);
  answer();
}

/**
 * startWorker starts yaml-worker beside this module, in the form this module runs in: the bundle's
 * `dist/chunks/yaml-worker.mjs` (an entry point of scripts/bundle-options.mjs), tsc's `.js`, or
 * the TypeScript source under tsx. Node 20 does not run `--import` in worker threads, so under tsx
 * the thread registers tsx itself before importing the source.
 */
function startWorker(): Worker {
  const extension = /\.[cm]?[jt]s$/.exec(new URL(import.meta.url).pathname)?.[0] ?? '.js';
  const entry = new URL(`./yaml-worker${extension}`, import.meta.url);
  const options = { resourceLimits: { maxOldGenerationSizeMb: YAML_WORKER_HEAP_MB } };
  if (extension !== '.ts') return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`, {
    ...options,
    eval: true,
  });
}

/** durationText writes milliseconds as Go prints a time.Duration (`10s`, `1.5s`, `250ms`). */
function durationText(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}
