import type { Leases } from './store.ts';

/** LeaderOptions tune an election. */
export interface LeaderOptions {
  /** How long leadership lasts without renewal; a dead leader is replaced within this (default 10 s). */
  readonly ttlMs?: number;
}

/**
 * Leader elects one replica among those sharing a store to run background work that must run
 * once (Event TTL expiry, aggregation controllers, Operation retention): every replica runs a
 * Leader for the same `name`; each tries to take the lease every third of its time to live, and
 * the one that holds it is the leader until it stops renewing (it stopped or died). On memory
 * and SQLite the only process is always the leader.
 *
 * Usage: `if (leader.isLeader) await sweep()` inside the periodic task, so a replica that lost
 * leadership stops doing the work at its next round.
 */
export class Leader {
  readonly #leases: Leases;
  readonly #name: string;
  readonly #holder: string;
  readonly #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;
  #leaderSince: number | undefined;
  #renewedAt = 0;
  #stopped = false;

  constructor(leases: Leases, name: string, holder: string, options: LeaderOptions = {}) {
    this.#leases = leases;
    this.#name = name;
    this.#holder = holder;
    this.#ttlMs = options.ttlMs ?? 10_000;
  }

  /** start runs the first election round (so `isLeader` is meaningful when it resolves) and keeps campaigning. */
  async start(): Promise<void> {
    await this.#round();
    if (this.#stopped) return;
    this.#timer = setInterval(() => void this.#round(), Math.max(1, Math.floor(this.#ttlMs / 3)));
    this.#timer.unref();
  }

  /** isLeader is true while this replica holds the leadership (renewed within its time to live). */
  get isLeader(): boolean {
    return this.#leaderSince !== undefined && performance.now() - this.#renewedAt < this.#ttlMs;
  }

  /** stop ends campaigning and hands leadership over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    const wasLeader = this.#leaderSince !== undefined;
    this.#leaderSince = undefined;
    if (wasLeader) await this.#leases.release(this.#name, this.#holder).catch(() => undefined);
  }

  async #round(): Promise<void> {
    if (this.#stopped) return;
    const started = performance.now();
    try {
      if (await this.#leases.acquire(this.#name, this.#holder, this.#ttlMs)) {
        this.#renewedAt = started;
        this.#leaderSince ??= started;
      } else this.#leaderSince = undefined;
    } catch {
      // Unreachable database: leadership lapses by itself once the lease has run out.
    }
  }
}
