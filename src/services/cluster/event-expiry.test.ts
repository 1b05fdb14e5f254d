import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration } from '../../lib/duration.ts';
import { EVENT_TTL_OPTION } from './options.ts';
import { ManualClock } from '../../lib/clock.ts';
import { MemoryStore } from '../../store/index.ts';
import { EventExpiry, lastActivity } from './event-expiry.ts';
import { EVENT_STORE_KIND, type CoreEvent } from './resources/events.ts';

function stored(name: string, created: string, extra: Partial<CoreEvent> = {}): CoreEvent {
  return { metadata: { name, namespace: 'default', creationTimestamp: created }, reason: 'R', ...extra };
}

describe('event expiry (--event-ttl)', () => {
  it('deletes events whose last activity is older than the TTL, and keeps the rest', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2025-01-01T02:00:00Z'));
    await store.transact(async (tx) => {
      await tx.put(EVENT_STORE_KIND, 'default/old', stored('old', '2025-01-01T00:00:00Z'));
      await tx.put(EVENT_STORE_KIND, 'default/recent', stored('recent', '2025-01-01T01:30:00Z'));
      await tx.put(
        EVENT_STORE_KIND,
        'default/series',
        stored('series', '2025-01-01T00:00:00Z', { series: { count: 5, lastObservedTime: '2025-01-01T01:45:00.000000Z' } }),
      );
      await tx.put(EVENT_STORE_KIND, 'default/legacy', stored('legacy', '2025-01-01T00:00:00Z', { lastTimestamp: '2025-01-01T01:10:00Z' }));
    });
    const expiry = new EventExpiry(store, clock, 3600);
    assert.equal(await expiry.sweep(), 1);
    assert.deepEqual(
      (await store.list(EVENT_STORE_KIND)).map((record) => record.key),
      ['default/legacy', 'default/recent', 'default/series'],
    );
    clock.advance(20 * 60_000);
    assert.equal(await expiry.sweep(), 1);
    assert.deepEqual(
      (await store.list(EVENT_STORE_KIND)).map((record) => record.key),
      ['default/recent', 'default/series'],
    );
    assert.equal(lastActivity(stored('x', 'not a time')), 0);
    await store.close();
  });

  it('sweeps a page at a time, whatever the number of events', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2025-01-01T02:00:00Z'));
    await store.transact(async (tx) => {
      for (let i = 0; i < 2_500; i++) {
        const name = `e${String(i).padStart(4, '0')}`;
        await tx.put(EVENT_STORE_KIND, `default/${name}`, stored(name, i % 2 === 0 ? '2025-01-01T00:00:00Z' : '2025-01-01T01:30:00Z'));
      }
    });
    const limits: (number | undefined)[] = [];
    const list = store.list.bind(store);
    store.list = ((kind, options) => {
      limits.push(options?.limit);
      return list(kind, options);
    }) as typeof store.list;
    assert.equal(await new EventExpiry(store, clock, 3600, 400).sweep(), 1_250);
    assert.ok(limits.length > 1 && limits.every((limit) => limit === 400), `every read is one page: ${limits.join(', ')}`);
    const left = await list(EVENT_STORE_KIND);
    assert.equal(left.length, 1_250);
    assert.ok(left.every((record) => Number(record.key.slice('default/e'.length)) % 2 === 1));
    await store.close();
  });

  it('reads --event-ttl as a duration', () => {
    assert.equal(parseDuration('1h'), 3600);
    assert.equal(parseDuration('1h30m'), 5400);
    assert.equal(parseDuration('90s'), 90);
    assert.equal(parseDuration('1d'), undefined);
    assert.equal(EVENT_TTL_OPTION.parse('30m'), 1800);
    assert.throws(() => EVENT_TTL_OPTION.parse('soon'), { message: "--event-ttl must be a duration such as 1h, 30m or 90s, not 'soon'" });
  });
});
