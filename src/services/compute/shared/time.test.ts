import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacificOffsetMinutes, rfc3339 } from './time.ts';

describe('rfc3339', () => {
  it('renders Pacific time with milliseconds and the offset in force, the same again from its cache', () => {
    assert.equal(rfc3339(Date.UTC(2026, 10, 22, 22, 27, 27, 460)), '2026-11-22T14:27:27.460-08:00');
    assert.equal(rfc3339(Date.UTC(2026, 10, 22, 22, 27, 27, 460)), '2026-11-22T14:27:27.460-08:00');
    assert.equal(rfc3339(Date.UTC(2025, 6, 4, 3, 4, 5, 67)), '2025-07-03T20:04:05.067-07:00');
    // Two times that share a cache slot each keep their own text.
    assert.equal(rfc3339(64), '1969-12-31T16:00:00.064-08:00');
    assert.equal(rfc3339(128), '1969-12-31T16:00:00.128-08:00');
    assert.equal(rfc3339(64), '1969-12-31T16:00:00.064-08:00');
  });

  it('switches offset exactly at the daylight saving transitions (US rules: second Sunday of March, first Sunday of November)', () => {
    // 2026-03-08 02:00 PST = 10:00 UTC: clocks jump to 03:00 PDT.
    assert.equal(rfc3339(Date.UTC(2026, 2, 8, 9, 59, 59, 999)), '2026-03-08T01:59:59.999-08:00');
    assert.equal(rfc3339(Date.UTC(2026, 2, 8, 10, 0, 0, 0)), '2026-03-08T03:00:00.000-07:00');
    // 2026-11-01 02:00 PDT = 09:00 UTC: clocks fall back to 01:00 PST, so 01:30 happens twice.
    assert.equal(rfc3339(Date.UTC(2026, 10, 1, 8, 30)), '2026-11-01T01:30:00.000-07:00');
    assert.equal(rfc3339(Date.UTC(2026, 10, 1, 9, 30)), '2026-11-01T01:30:00.000-08:00');
    assert.equal(pacificOffsetMinutes(Date.UTC(2026, 0, 1)), -480);
    assert.equal(pacificOffsetMinutes(Date.UTC(2026, 6, 1)), -420);
  });
});
