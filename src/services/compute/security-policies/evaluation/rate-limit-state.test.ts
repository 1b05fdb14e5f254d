import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimitState, type RateLimitSpec } from './rate-limit-state.ts';

const T0 = Date.UTC(2026, 0, 1);
const throttle: RateLimitSpec = { count: 3, intervalMs: 10_000 };

describe('RateLimitState', () => {
  it('counts a fixed window opened by the first request: count conform, the rest of the window exceeds, then a new window', () => {
    const state = new RateLimitState();
    const outcomes = [0, 1, 2, 3, 9_999].map((at) => state.hit('k', T0 + at, throttle).outcome);
    assert.deepEqual(outcomes, [
      'RATE_LIMIT_THRESHOLD_CONFORM',
      'RATE_LIMIT_THRESHOLD_CONFORM',
      'RATE_LIMIT_THRESHOLD_CONFORM',
      'RATE_LIMIT_THRESHOLD_EXCEED',
      'RATE_LIMIT_THRESHOLD_EXCEED',
    ]);
    const next = state.hit('k', T0 + 10_000, throttle);
    assert.deepEqual(next, { outcome: 'RATE_LIMIT_THRESHOLD_CONFORM', count: 1, windowStart: T0 + 10_000 });
  });

  it('keeps buckets apart', () => {
    const state = new RateLimitState();
    for (let i = 0; i < 4; i++) state.hit('a', T0, throttle);
    assert.equal(state.hit('b', T0, throttle).outcome, 'RATE_LIMIT_THRESHOLD_CONFORM');
    assert.equal(state.hit('a', T0, throttle).outcome, 'RATE_LIMIT_THRESHOLD_EXCEED');
  });

  it('bans without a ban threshold from the first exceed to the window end plus the ban duration, without counting', () => {
    const state = new RateLimitState();
    const spec: RateLimitSpec = { count: 1, intervalMs: 10_000, ban: { durationMs: 60_000 } };
    state.hit('k', T0, spec);
    const first = state.hit('k', T0 + 5_000, spec);
    assert.deepEqual(first, { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED', count: 2, windowStart: T0, banUntil: T0 + 70_000 });
    assert.deepEqual(state.hit('k', T0 + 69_999, spec), { outcome: 'BAN_THRESHOLD_EXCEED', count: 2, windowStart: T0, banUntil: T0 + 70_000 });
    assert.equal(state.hit('k', T0 + 70_000, spec).outcome, 'RATE_LIMIT_THRESHOLD_CONFORM');
  });

  it('bans with a ban threshold once the exceeding requests pass it within its interval', () => {
    const state = new RateLimitState();
    const spec: RateLimitSpec = { count: 1, intervalMs: 10_000, ban: { durationMs: 60_000, threshold: { count: 2, intervalMs: 30_000 } } };
    assert.equal(state.hit('k', T0, spec).outcome, 'RATE_LIMIT_THRESHOLD_CONFORM');
    assert.equal(state.hit('k', T0 + 1, spec).outcome, 'RATE_LIMIT_THRESHOLD_EXCEED');
    assert.equal(state.hit('k', T0 + 2, spec).outcome, 'RATE_LIMIT_THRESHOLD_EXCEED');
    assert.deepEqual(state.hit('k', T0 + 3, spec), { outcome: 'BAN_THRESHOLD_EXCEED', count: 4, windowStart: T0, banUntil: T0 + 60_003 });
    assert.equal(state.hit('k', T0 + 60_002, spec).outcome, 'BAN_THRESHOLD_EXCEED');
    assert.equal(state.hit('k', T0 + 60_003, spec).outcome, 'RATE_LIMIT_THRESHOLD_CONFORM');
  });

  it('forgets exceeding requests whose ban-threshold interval has passed', () => {
    const state = new RateLimitState();
    const spec: RateLimitSpec = { count: 1, intervalMs: 10_000, ban: { durationMs: 60_000, threshold: { count: 2, intervalMs: 10_000 } } };
    state.hit('k', T0, spec);
    state.hit('k', T0 + 1, spec);
    state.hit('k', T0 + 2, spec);
    // A new window: one conforms, then the third exceed in a fresh ban interval does not ban.
    state.hit('k', T0 + 10_000, spec);
    assert.equal(state.hit('k', T0 + 10_001, spec).outcome, 'RATE_LIMIT_THRESHOLD_EXCEED');
  });

  it('holds at most its capacity of buckets, dropping the least recently used', () => {
    const state = new RateLimitState(2);
    state.hit('a', T0, throttle);
    state.hit('b', T0, throttle);
    state.hit('a', T0, throttle);
    state.hit('c', T0, throttle);
    assert.equal(state.size, 2);
    // b was dropped: it starts again; a kept its count.
    assert.equal(state.hit('b', T0, throttle).count, 1);
    state.clear();
    assert.equal(state.size, 0);
  });

  it('opens a new window when the clock is set back before the window', () => {
    const state = new RateLimitState();
    for (let i = 0; i < 4; i++) state.hit('k', T0, throttle);
    assert.equal(state.hit('k', T0 - 1, throttle).outcome, 'RATE_LIMIT_THRESHOLD_CONFORM');
  });
});
