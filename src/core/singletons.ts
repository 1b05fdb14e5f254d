import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Leader, type LeaderOptions, type StartSingleton } from '../store/leader.ts';
import type { Leases } from '../store/store.ts';

/** Singleton is one piece of run-once background work as this replica sees it. */
export interface Singleton {
  /** running is true while the work runs on this replica. */
  readonly running: boolean;
  /** stop ends the work here and hands it over (another replica's next round takes it). */
  stop(): Promise<void>;
}

/**
 * RunSingleton runs `start`'s work on exactly one of the replicas sharing the store, under the
 * lease `name`; it resolves after the first election round, with the work started if this
 * replica won. On memory and SQLite (one process) the work simply runs.
 */
export type RunSingleton = (name: string, start: StartSingleton) => Promise<Singleton>;

/** SingletonsOptions tune every election of one replica (tests shorten them). */
export interface SingletonsOptions extends Omit<LeaderOptions, 'onChange'> {
  /** report hears which work starts and stops here (core logs it when replicas share the store). */
  readonly report?: (name: string, running: boolean) => void;
}

/**
 * Singletons is one replica's run-once background work: a Leader per name, all under one holder
 * identity (host, process and a random part, so replicas never mistake each other), stopped
 * together when the server closes.
 */
export class Singletons {
  readonly #leases: Leases;
  readonly #options: SingletonsOptions;
  readonly #leaders = new Set<Leader>();
  /** holder is who this replica is in the lease table. */
  readonly holder: string;

  constructor(leases: Leases, options: SingletonsOptions = {}) {
    this.#leases = leases;
    this.#options = options;
    this.holder = leases.shared ? `${hostname()}/${process.pid}/${randomUUID()}` : 'this-process';
  }

  /** run is the family's RunSingleton. */
  readonly run: RunSingleton = async (name, start) => {
    const { report, ...options } = this.#options;
    const leader = new Leader(this.#leases, name, this.holder, start, {
      ...options,
      ...(report === undefined ? {} : { onChange: (running: boolean) => report(name, running) }),
    });
    this.#leaders.add(leader);
    await leader.start();
    return {
      get running() {
        return leader.running;
      },
      stop: async () => {
        this.#leaders.delete(leader);
        await leader.stop();
      },
    };
  };

  /** close stops every Leader still campaigning and releases its lease. */
  async close(): Promise<void> {
    const leaders = [...this.#leaders];
    this.#leaders.clear();
    await Promise.all(leaders.map((leader) => leader.stop()));
  }
}
