import type { Leases } from './store.ts';

/**
 * HeldLease is a lease kept alive by renewing it every third of its time to live, until it is
 * released. `lost` turns true when the lease could not be renewed before it ran out (another
 * holder may own it now): the work it guards must stop at its next step.
 */
export class HeldLease {
  readonly #leases: Leases;
  readonly #name: string;
  readonly #holder: string;
  readonly #ttlMs: number;
  readonly #timer: NodeJS.Timeout;
  #renewedAt: number;
  #lost = false;
  #released = false;

  /** take acquires `name` for `holder` and starts renewing it; undefined when another holds it. */
  static async take(leases: Leases, name: string, holder: string, ttlMs: number): Promise<HeldLease | undefined> {
    const started = performance.now();
    return (await leases.acquire(name, holder, ttlMs)) ? new HeldLease(leases, name, holder, ttlMs, started) : undefined;
  }

  private constructor(leases: Leases, name: string, holder: string, ttlMs: number, renewedAt: number) {
    this.#leases = leases;
    this.#name = name;
    this.#holder = holder;
    this.#ttlMs = ttlMs;
    this.#renewedAt = renewedAt;
    this.#timer = setInterval(() => void this.#renew(), Math.max(1, Math.floor(ttlMs / 3)));
    this.#timer.unref();
  }

  /** lost is true once the lease may belong to someone else. */
  get lost(): boolean {
    // Measured on this process's monotonic clock from the start of the last successful renewal,
    // which is no later than the database's own expiry.
    if (!this.#lost && performance.now() - this.#renewedAt >= this.#ttlMs) this.#lost = true;
    return this.#lost;
  }

  /** release stops renewing and gives the lease up (best effort: an unreachable database lets it expire). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    if (!this.lost) await this.#leases.release(this.#name, this.#holder).catch(() => undefined);
  }

  async #renew(): Promise<void> {
    if (this.#released || this.lost) return;
    const started = performance.now();
    try {
      if (await this.#leases.acquire(this.#name, this.#holder, this.#ttlMs)) this.#renewedAt = started;
      else this.#lost = true;
    } catch {
      // The database is unreachable: keep trying; `lost` turns true if the lease runs out first.
    }
  }
}
