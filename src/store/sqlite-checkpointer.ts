import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** CheckpointerData is the checkpoint thread's workerData. */
interface CheckpointerData {
  readonly fogbankSqliteCheckpointer: true;
  readonly file: string;
}

/** CheckpointRequest is what the main thread asks of the checkpoint thread. */
type CheckpointRequest = 'checkpoint' | 'close';

/** CheckpointReply is the outcome of one checkpoint: the log's length in frames, or why it failed. */
interface CheckpointReply {
  readonly log: number;
  readonly error?: string;
}

// This module is also the checkpoint thread's entry point: the thread loads it (its own URL, so
// it works from the sources and from the bundle's chunk alike) and recognises itself by its workerData.
if (!isMainThread && parentPort !== null && (workerData as Partial<CheckpointerData> | null)?.fogbankSqliteCheckpointer === true) {
  runCheckpointThread(parentPort, workerData as CheckpointerData);
}

function runCheckpointThread(port: MessagePort, data: CheckpointerData): void {
  const db = new Database(data.file);
  port.on('message', (request: CheckpointRequest) => {
    if (request === 'close') {
      db.close();
      // Ends this thread only; a loader the thread registered could otherwise keep it alive.
      process.exit(0);
    }
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      port.postMessage({ log: result?.log ?? 0 } satisfies CheckpointReply);
    } catch (error) {
      port.postMessage({ log: 0, error: error instanceof Error ? error.message : String(error) } satisfies CheckpointReply);
    }
  });
}

// A checkpoint runs in the background once the writer has committed this many times since the last.
const COMMITS_PER_CHECKPOINT = 16;
// Past this many commits without a finished background checkpoint (the thread still starting, or
// slow), the writer checkpoints itself, as SQLite would, so the log stays bounded meanwhile.
const COMMITS_WITHOUT_CHECKPOINT = 256;
// SQLite's own automatic checkpoint threshold: about 4 MiB of log in 4 KiB pages.
const RESTART_FRAMES = 1000;

/**
 * Checkpointer takes the copying of a SQLite database's write-ahead log back into the database
 * (a checkpoint, with its fsyncs) off the main thread: SQLite's automatic checkpoint runs inside
 * the COMMIT that crosses its threshold, and stalls the event loop for milliseconds each time.
 *
 * A thread with its own connection checkpoints every few commits, while the writer goes on. The
 * log starts over only when a checkpoint has copied all of it, though, and commits keep adding to
 * it meanwhile; so once the log is long the writer waits, between two transactions
 * (`beforeTransaction`, whose promise the next transaction awaits), while the thread copies the
 * little that is left, and its next transaction starts the log over. Waiting is asynchronous:
 * the event loop goes on (reads, requests being parsed) and the transactions queued meanwhile
 * commit together after it; the fsyncs of that copy (milliseconds on a busy disk) no longer
 * block the loop, as they did when the writer copied the tail itself. The writer still does it
 * all itself while the thread is starting, or if the thread falls far behind.
 */
export class Checkpointer {
  readonly #file: string;
  readonly #writer: Database.Database;
  #worker: Worker | undefined;
  #running = false;
  /** Commits since a background checkpoint was last asked for. */
  #commits = 0;
  /** Commits since a background checkpoint last finished (COMMITS_WITHOUT_CHECKPOINT). */
  #unchecked = 0;
  #restart = false;
  #failed = false;
  /** Settled by the thread's next reply (or its failure). */
  #replied: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  /** The tail checkpoint the next transaction waits for, while one is under way. */
  #tail: Promise<void> | undefined;

  /** The writer connection must have `wal_autocheckpoint = 0`; a failed thread gives the job back to SQLite. */
  constructor(file: string, writer: Database.Database) {
    this.#file = file;
    this.#writer = writer;
  }

  /**
   * beforeTransaction runs between two write transactions: when the tail checkpoint is due, it
   * returns the promise of it (done on the thread) that the next transaction must await first.
   */
  beforeTransaction(): Promise<void> | undefined {
    if (this.#tail !== undefined) return this.#tail;
    if (this.#failed) return undefined;
    if (this.#unchecked >= COMMITS_WITHOUT_CHECKPOINT || (this.#restart && this.#worker === undefined)) {
      this.#restart = false;
      this.#unchecked = 0;
      this.#writer.pragma('wal_checkpoint(PASSIVE)');
      return undefined;
    }
    if (!this.#restart) return undefined;
    this.#restart = false;
    const tail = this.#copyTail().finally(() => {
      this.#tail = undefined;
    });
    this.#tail = tail;
    return tail;
  }

  /** committed counts a commit and starts a background checkpoint every COMMITS_PER_CHECKPOINT. */
  committed(): void {
    this.#unchecked++;
    if (this.#failed || ++this.#commits < COMMITS_PER_CHECKPOINT || this.#running) return;
    this.#commits = 0;
    this.#ask();
  }

  /** Waits for the running checkpoint, if any, then has the thread copy what is left (the writer is idle meanwhile). */
  async #copyTail(): Promise<void> {
    if (this.#running) await this.#reply();
    if (this.#failed || this.#worker === undefined) return;
    this.#tailAsked = true;
    this.#ask();
    await this.#reply();
    // A reply of the checkpoint waited for first may have asked for this very restart again.
    this.#restart = false;
  }

  /** Set while the thread copies the tail: its reply's log length then says nothing about the next restart. */
  #tailAsked = false;

  #ask(): void {
    this.#running = true;
    const worker = this.#worker ?? this.#start();
    worker.ref();
    worker.postMessage('checkpoint' satisfies CheckpointRequest);
  }

  /** A promise of the thread's next reply (settled on failure too). */
  #reply(): Promise<void> {
    if (this.#replied === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      this.#replied = { promise, resolve };
    }
    return this.#replied.promise;
  }

  #settleReply(): void {
    const replied = this.#replied;
    this.#replied = undefined;
    replied?.resolve();
  }

  /** close ends the thread (after its running checkpoint, if any). */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref();
    worker.postMessage('close' satisfies CheckpointRequest);
    await exited;
  }

  #start(): Worker {
    const data: CheckpointerData = { fogbankSqliteCheckpointer: true, file: this.#file };
    const self = new URL(import.meta.url);
    // From the TypeScript sources (tests), the thread needs tsx's loader registered first.
    const worker = self.pathname.endsWith('.ts')
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(self.href)}); });`,
          { eval: true, workerData: data },
        )
      : new Worker(self, { workerData: data });
    worker.on('message', (reply: CheckpointReply) => {
      this.#running = false;
      this.#unchecked = 0;
      const tail = this.#tailAsked;
      this.#tailAsked = false;
      // A closing checkpointer keeps the thread referenced until it exits.
      if (this.#worker === worker) worker.unref();
      if (reply.error !== undefined) this.#fail();
      else if (!tail && reply.log >= RESTART_FRAMES) this.#restart = true;
      this.#settleReply();
    });
    worker.on('error', () => this.#fail());
    worker.on('exit', () => {
      if (this.#worker === worker) this.#fail();
    });
    this.#worker = worker;
    return worker;
  }

  /** Without the thread, SQLite checkpoints as it would by itself. */
  #fail(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#running = false;
    this.#worker = undefined;
    this.#settleReply();
    if (this.#writer.open) this.#writer.pragma('wal_autocheckpoint = 1000');
  }
}
