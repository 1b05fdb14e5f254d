/**
 * Events expire: the real server stores each event with an etcd lease of `--event-ttl`
 * (default one hour) renewed on every write. fogbank sweeps instead: an event whose last
 * observed activity (creation, lastTimestamp, series.lastObservedTime) is older than the TTL is
 * deleted, which watchers see as DELETED.
 */
import type { Clock, Timers } from '../../lib/clock.ts';
import type { Store, StoredRecord } from '../../store/index.ts';
import type { CoreEvent } from './resources/events.ts';
import { EVENT_STORE_KIND } from './resources/events.ts';

/** UNREF_TIMERS wait on real timers that never hold the process open. */
const UNREF_TIMERS: Timers = { delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()) };

/** lastActivity is the newest time an event records, in milliseconds. */
export function lastActivity(event: CoreEvent): number {
  const times = [event.metadata.creationTimestamp, event.lastTimestamp, event.series?.lastObservedTime]
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .map((value) => Date.parse(value))
    .filter((value) => !Number.isNaN(value));
  return times.length === 0 ? 0 : Math.max(...times);
}

/**
 * EventExpiry deletes expired events periodically. Replicas sharing a store run it on one elected
 * replica (`context.singleton`); a replica taking over sweeps at once, since the one before it
 * may have died just before its next sweep.
 */
export class EventExpiry {
  #stopped = false;
  #wake: () => void = () => undefined;
  readonly #stopSignal = new Promise<void>((resolve) => (this.#wake = resolve));
  #loop: Promise<void> | undefined;
  #running: Promise<number> | undefined;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly ttlSeconds: number,
    /** How many events a sweep reads (and at most deletes) at a time. */
    readonly pageSize = 1000,
    /**
     * The timers the interval is measured with: the server's, which run on its controlled clock,
     * so advancing the clock past the TTL sweeps at once (by default, unreferenced real timers).
     */
    readonly timers: Timers = UNREF_TIMERS,
  ) {}

  /** start sweeps now and then every min(TTL, 60 s) of the clock; the timers never hold the process open. */
  start(): void {
    const interval = Math.max(1, Math.min(this.ttlSeconds, 60)) * 1000;
    this.#loop = (async () => {
      while (!this.#stopped) {
        await this.sweep().catch(() => undefined);
        await Promise.race([this.timers.delay(interval), this.#stopSignal]);
      }
    })();
  }

  /** stop ends the sweeping and waits for a sweep in progress (so the next leader's sweep does not overlap it). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake();
    await this.#loop;
    await this.#running?.catch(() => undefined);
  }

  /** sweep deletes every expired event now and returns how many went. */
  sweep(): Promise<number> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #sweep(): Promise<number> {
    const cutoff = this.clock.now() - this.ttlSeconds * 1000;
    let removed = 0;
    // A page at a time, each page's expired events deleted in one transaction before the next is
    // read: however many events are stored, a sweep holds one page in memory, and the requests
    // that arrive meanwhile are served between pages.
    for (let after: string | undefined; ; ) {
      const page = await this.store.list<CoreEvent>(EVENT_STORE_KIND, { limit: this.pageSize, ...(after === undefined ? {} : { after }) });
      const expired = page.filter((record) => lastActivity(record.value) < cutoff);
      if (expired.length > 0) removed += await this.#remove(expired);
      if (page.length < this.pageSize) return removed;
      after = page[page.length - 1]!.key;
      // A store read may complete without leaving this turn of the event loop (SQLite): leave it.
      await new Promise((next) => setImmediate(next));
    }
  }

  #remove(expired: readonly StoredRecord<CoreEvent>[]): Promise<number> {
    return this.store.transact(async (tx) => {
      let removed = 0;
      for (const { key, revision } of expired) {
        const current = await tx.get<CoreEvent>(EVENT_STORE_KIND, key);
        // Rewritten since the scan: it lives on.
        if (current === undefined || current.revision !== revision) continue;
        await tx.delete(EVENT_STORE_KIND, key);
        removed++;
      }
      return removed;
    });
  }
}
