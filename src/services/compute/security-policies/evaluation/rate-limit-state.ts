import { BoundedMap } from '../../../../lib/bounded-map.ts';
import type { RateLimitOutcome } from './decision.ts';

/**
 * The counters of rate-limited rules (throttle, rate_based_ban, fairshare), kept outside a
 * compiled policy so a policy recompiled after a change keeps counting: a bucket is named by the
 * policy, the rule's priority and the key, not by the compiled object.
 *
 * Counting model (Cloud Armor's own is approximate, per region and per backend service; this
 * one is exact and single-process): a fixed window per bucket that opens with the bucket's first
 * request and lasts `intervalSec`. Requests 1..count in a window conform; the rest of the window
 * exceeds; the next request after the window ends opens a new one. A rate_based_ban without a
 * banThreshold bans the key from its first exceeding request until the window's end plus
 * `banDurationSec`. With a banThreshold, the exceeding requests are counted in their own fixed
 * window of `banThreshold.intervalSec` (opened by the first exceeding request), and the request
 * that takes that count past `banThreshold.count` bans the key for `banDurationSec` from then.
 * While banned, requests are not counted. Memory is bounded: the least recently used buckets are
 * dropped past the capacity, and a dropped bucket is one whose window and ban have usually ended
 * (an ended bucket behaves exactly as a missing one).
 */

/** RateLimitSpec is what one rule's counting needs, in milliseconds. */
export interface RateLimitSpec {
  readonly count: number;
  readonly intervalMs: number;
  /** ban is set for rate_based_ban. */
  readonly ban?: { readonly durationMs: number; readonly threshold?: { readonly count: number; readonly intervalMs: number } };
}

/** RateLimitHit is the verdict on one counted request and the bucket's state after it. */
export interface RateLimitHit {
  readonly outcome: RateLimitOutcome;
  readonly count: number;
  readonly windowStart: number;
  readonly banUntil?: number;
}

interface Bucket {
  windowStart: number;
  count: number;
  banUntil: number | undefined;
  exceedWindowStart: number | undefined;
  exceedCount: number;
}

/** DEFAULT_RATE_LIMIT_KEYS is how many buckets a RateLimitState holds by default. */
export const DEFAULT_RATE_LIMIT_KEYS = 100_000;

/** RateLimitState holds every bucket of the policies evaluated with it. */
export class RateLimitState {
  readonly #buckets: BoundedMap<string, Bucket>;

  constructor(capacity = DEFAULT_RATE_LIMIT_KEYS) {
    this.#buckets = new BoundedMap(capacity);
  }

  /** size is the number of buckets held. */
  get size(): number {
    return this.#buckets.size;
  }

  /** clear drops every bucket (a reset). */
  clear(): void {
    this.#buckets.clear();
  }

  /** hit counts one request in bucket `id` at time `now` and says whether it conforms, exceeds or is banned. */
  hit(id: string, now: number, spec: RateLimitSpec): RateLimitHit {
    let bucket = this.#buckets.get(id);
    if (bucket !== undefined && bucket.banUntil !== undefined && now < bucket.banUntil) {
      this.#buckets.set(id, bucket);
      return { outcome: 'BAN_THRESHOLD_EXCEED', count: bucket.count, windowStart: bucket.windowStart, banUntil: bucket.banUntil };
    }
    if (bucket === undefined) bucket = { windowStart: now, count: 0, banUntil: undefined, exceedWindowStart: undefined, exceedCount: 0 };
    if (bucket.banUntil !== undefined && now >= bucket.banUntil) bucket.banUntil = undefined;
    if (now >= bucket.windowStart + spec.intervalMs || now < bucket.windowStart) {
      bucket.windowStart = now;
      bucket.count = 0;
    }
    bucket.count++;
    this.#buckets.set(id, bucket);
    if (bucket.count <= spec.count) return { outcome: 'RATE_LIMIT_THRESHOLD_CONFORM', count: bucket.count, windowStart: bucket.windowStart };
    const ban = spec.ban;
    if (ban === undefined) return { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED', count: bucket.count, windowStart: bucket.windowStart };
    if (ban.threshold === undefined) {
      bucket.banUntil = bucket.windowStart + spec.intervalMs + ban.durationMs;
      return { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED', count: bucket.count, windowStart: bucket.windowStart, banUntil: bucket.banUntil };
    }
    if (bucket.exceedWindowStart === undefined || now >= bucket.exceedWindowStart + ban.threshold.intervalMs || now < bucket.exceedWindowStart) {
      bucket.exceedWindowStart = now;
      bucket.exceedCount = 0;
    }
    bucket.exceedCount++;
    if (bucket.exceedCount > ban.threshold.count) {
      bucket.banUntil = now + ban.durationMs;
      bucket.exceedWindowStart = undefined;
      bucket.exceedCount = 0;
      return { outcome: 'BAN_THRESHOLD_EXCEED', count: bucket.count, windowStart: bucket.windowStart, banUntil: bucket.banUntil };
    }
    return { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED', count: bucket.count, windowStart: bucket.windowStart };
  }
}
