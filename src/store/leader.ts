import type { Timers } from '../lib/clock.ts';
import type { Leases } from './store.ts';

/** SingletonWork is background work a Leader started; `stop` ends it (and waits for a step in progress). */
export interface SingletonWork {
  stop(): Promise<void> | void;
}

/** StartSingleton starts the work on the replica just elected (it re-reads whatever state it needs). */
export type StartSingleton = () => Promise<SingletonWork> | SingletonWork;

/** LeaderOptions tune an election. */
export interface LeaderOptions {
  /** How long leadership lasts without renewal; a dead leader is replaced within this (default 10 s). */
  readonly ttlMs?: number;
  /** now reads the monotonic clock renewals are measured on, in milliseconds (default performance.now). */
  readonly now?: () => number;
  /** timers pace the rounds (default: the event loop's, never holding the process open). */
  readonly timers?: Timers;
  /** onChange hears every start (true) and stop (false) of the work on this replica. */
  readonly onChange?: (running: boolean) => void;
}

/** DEFAULT_LEADER_TTL_MS is how long leadership lasts without renewal unless told otherwise. */
export const DEFAULT_LEADER_TTL_MS = 10_000;

const backgroundTimers: Timers = { delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()) };

/**
 * Leader runs background work that must run once among the replicas sharing a store (Event TTL
 * expiry, the ClusterRole aggregation controller, Operation retention) on one elected replica.
 * Every replica runs a Leader for the same `name`; each round (every third of the time to live)
 * tries to take or renew the lease. The holder starts the work when it wins and stops it when it
 * loses the lease, when a renewal has not succeeded for two thirds of the time to live (so it has
 * stopped before the lease runs out and another replica may take it), or when it is stopped —
 * which also releases the lease, so a replica shutting down cleanly hands over at the others'
 * next round rather than after the lease expires. A replica that dies simply stops renewing.
 * On memory and SQLite the leases belong to one process: the first Leader for a name runs it.
 */
export class Leader {
  readonly #leases: Leases;
  readonly #name: string;
  readonly #holder: string;
  readonly #start: StartSingleton;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #timers: Timers;
  readonly #onChange: ((running: boolean) => void) | undefined;
  #work: SingletonWork | undefined;
  #renewedAt = Number.NEGATIVE_INFINITY;
  #campaign: Promise<void> | undefined;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  #wake: () => void = () => undefined;
  readonly #stopSignal = new Promise<void>((resolve) => (this.#wake = resolve));

  constructor(leases: Leases, name: string, holder: string, start: StartSingleton, options: LeaderOptions = {}) {
    this.#leases = leases;
    this.#name = name;
    this.#holder = holder;
    this.#start = start;
    this.#ttlMs = options.ttlMs ?? DEFAULT_LEADER_TTL_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#timers = options.timers ?? backgroundTimers;
    this.#onChange = options.onChange;
  }

  /** start runs the first round (so `running` is meaningful when it resolves) and keeps campaigning. */
  async start(): Promise<void> {
    if (this.#campaign !== undefined) throw new Error(`leader ${this.#name} already started`);
    let firstRound: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (firstRound = resolve));
    this.#campaign = (async () => {
      try {
        await this.#round();
      } finally {
        firstRound();
      }
      while (!this.#stopped) {
        await Promise.race([this.#timers.delay(Math.max(1, Math.floor(this.#ttlMs / 3))), this.#stopSignal]);
        if (this.#stopped) return;
        await this.#round();
      }
    })();
    await first;
  }

  /** running is true while the work runs here (this replica holds the lease). */
  get running(): boolean {
    return this.#work !== undefined;
  }

  /** stop ends campaigning, stops the work and releases the lease, so another replica takes over at once. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopped = true;
      this.#wake();
      await this.#campaign;
      await this.#end();
      await this.#leases.release(this.#name, this.#holder).catch(() => undefined);
    })();
    return this.#stopping;
  }

  /** round takes or renews the lease and starts or stops the work to match. */
  async #round(): Promise<void> {
    const started = this.#now();
    const outcome = await this.#leases.acquire(this.#name, this.#holder, this.#ttlMs).then(
      (held) => (held ? 'held' : 'refused'),
      // Unreachable database: keep the work until the renewal deadline, then stop it.
      () => 'failed',
    );
    if (this.#stopped) return;
    if (outcome === 'held') {
      this.#renewedAt = started;
      if (this.#work === undefined) await this.#begin();
    } else if (outcome === 'refused' || this.#now() - this.#renewedAt >= (this.#ttlMs * 2) / 3) {
      await this.#end();
    }
  }

  async #begin(): Promise<void> {
    try {
      this.#work = await this.#start();
    } catch {
      // The work could not start (the store may be unreachable): let another replica, or the next round, try.
      this.#renewedAt = Number.NEGATIVE_INFINITY;
      await this.#leases.release(this.#name, this.#holder).catch(() => undefined);
      return;
    }
    this.#onChange?.(true);
  }

  async #end(): Promise<void> {
    const work = this.#work;
    if (work === undefined) return;
    this.#work = undefined;
    // A failure while stopping must not end the campaign: the work is over either way.
    await Promise.resolve()
      .then(() => work.stop())
      .catch(() => undefined);
    this.#onChange?.(false);
  }
}
