/**
 * Events expire: the real server stores each event with an etcd lease of `--event-ttl`
 * (default one hour) renewed on every write. fogbank sweeps instead: an event whose last
 * observed activity (creation, lastTimestamp, series.lastObservedTime) is older than the TTL is
 * deleted, which watchers see as DELETED.
 */
import type { Clock } from '../../core/clock.ts';
import type { Store } from '../../store/index.ts';
import type { CoreEvent } from './resources/events.ts';
import { EVENT_STORE_KIND } from './resources/events.ts';

/** lastActivity is the newest time an event records, in milliseconds. */
export function lastActivity(event: CoreEvent): number {
  const times = [event.metadata.creationTimestamp, event.lastTimestamp, event.series?.lastObservedTime]
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .map((value) => Date.parse(value))
    .filter((value) => !Number.isNaN(value));
  return times.length === 0 ? 0 : Math.max(...times);
}

/** EventExpiry deletes expired events periodically. */
export class EventExpiry {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly ttlSeconds: number,
  ) {}

  /** start sweeps every min(TTL, 60 s); the timer never holds the process open. */
  start(): void {
    const interval = Math.max(1, Math.min(this.ttlSeconds, 60)) * 1000;
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), interval);
    this.#timer.unref();
  }

  /** stop ends the sweeping. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
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
    const expired = (await this.store.list<CoreEvent>(EVENT_STORE_KIND)).filter((record) => lastActivity(record.value) < cutoff);
    if (expired.length === 0) return 0;
    return this.store.transact(async (tx) => {
      let removed = 0;
      for (const record of expired) {
        const current = await tx.get<CoreEvent>(EVENT_STORE_KIND, record.key);
        // Rewritten since the scan: it lives on.
        if (current === undefined || current.revision !== record.revision) continue;
        await tx.delete(EVENT_STORE_KIND, record.key);
        removed++;
      }
      return removed;
    });
  }
}
