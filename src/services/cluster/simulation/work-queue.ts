/**
 * The simulation's work queue, as client-go's rate-limited workqueue is used by every controller:
 * a key waits at most once however often it is added, one key is worked on at a time, a failed
 * sync is retried with a growing (real-time) backoff, and `after` adds a key once fogbank's
 * clock has moved on by the given time — a frozen clock holds it, `clock advance` releases it.
 */
import type { Timers } from '../../../lib/clock.ts';

/** Reconciler brings one kind of object (or one piece of the cluster) to where it should be. */
export interface Reconciler {
  readonly name: string;
  sync(key: string): Promise<void>;
}

/** RETRY_LIMIT_MS caps the backoff of a sync that keeps failing (client-go's default is 1000 s; the simulation keeps it short). */
const RETRY_LIMIT_MS = 5000;

export class WorkQueue {
  readonly #pending = new Map<string, { readonly reconciler: Reconciler; readonly key: string }>();
  readonly #failures = new Map<string, number>();
  readonly #timers: Timers;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** lastError is the last failure of a sync (retried), for diagnostics. */
  lastError: unknown;

  constructor(timers: Timers) {
    this.#timers = timers;
  }

  /** add queues `key` for `reconciler` (once, however often it is added before it runs). */
  add(reconciler: Reconciler, key: string): void {
    if (this.#stopped) return;
    this.#pending.set(`${reconciler.name}\u0000${key}`, { reconciler, key });
    this.#kick();
  }

  #kick(): void {
    this.#running ??= this.#loop().finally(() => {
      this.#running = undefined;
      // Added between the loop's last look and here.
      if (this.#pending.size > 0 && !this.#stopped) this.#kick();
    });
  }

  /** after queues `key` once fogbank's clock reads `ms` later than now. */
  after(ms: number, reconciler: Reconciler, key: string): void {
    if (this.#stopped) return;
    void this.#timers.delay(Math.max(0, ms)).then(() => this.add(reconciler, key));
  }

  /** idle resolves once nothing is queued or running (work waiting on the clock does not count). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** stop drops what is queued and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pending.clear();
    await this.#running;
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      const next = this.#pending.entries().next().value;
      if (next === undefined) return;
      const [id, { reconciler, key }] = next;
      this.#pending.delete(id);
      try {
        await reconciler.sync(key);
        this.#failures.delete(id);
      } catch (error) {
        this.lastError = error;
        const failures = (this.#failures.get(id) ?? 0) + 1;
        this.#failures.set(id, failures);
        // A retry is not a step of the simulation: it waits on real time, even on a frozen clock.
        setTimeout(() => this.add(reconciler, key), Math.min(RETRY_LIMIT_MS, 5 * 2 ** failures)).unref();
      }
    }
  }
}
