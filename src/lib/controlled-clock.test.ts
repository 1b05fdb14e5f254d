import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from './clock.ts';
import { advanceFiring, ClockTimers, ControlledClock } from './controlled-clock.ts';
import { parseGoDuration } from './duration.ts';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ControlledClock', () => {
  it('reads the base clock until told otherwise, then freezes, sets, advances and unfreezes', () => {
    const base = new ManualClock(1_000);
    const clock = new ControlledClock(base);
    assert.equal(clock.now(), 1_000);
    base.advance(10);
    assert.equal(clock.now(), 1_010);
    clock.freeze();
    base.advance(50);
    assert.deepEqual([clock.now(), clock.frozen], [1_010, true]);
    clock.set(new Date(5_000));
    clock.advance(500);
    assert.equal(clock.now(), 5_500);
    clock.unfreeze();
    base.advance(7);
    assert.deepEqual([clock.now(), clock.frozen], [5_507, false]);
    assert.throws(() => clock.advance(-1), RangeError);
    assert.throws(() => clock.set(Number.NaN), RangeError);
  });

  it('tells its listeners after every change', () => {
    const clock = new ControlledClock(new ManualClock(0));
    let heard = 0;
    const stop = clock.onChange(() => heard++);
    clock.freeze();
    clock.freeze();
    clock.advance(1);
    stop();
    clock.unfreeze();
    assert.equal(heard, 2);
  });
});

describe('ClockTimers', () => {
  it('ends a delay when the clock is advanced to its due time, not before, while frozen', async () => {
    const clock = new ControlledClock(new ManualClock(0));
    clock.freeze();
    const timers = new ClockTimers(clock);
    let done = false;
    void timers.delay(60_000).then(() => (done = true));
    clock.advance(59_999);
    await settle();
    assert.equal(done, false);
    clock.advance(1);
    await settle();
    assert.equal(done, true);
    assert.equal(timers.pendingCount, 0);
  });

  it('ends a delay on the real timer when the clock runs', async () => {
    const timers = new ClockTimers(new ControlledClock({ now: () => Date.now() }));
    // The delay's own timer never holds the process open: this one keeps the test alive meanwhile.
    const alive = setTimeout(() => undefined, 10_000);
    await timers.delay(5);
    clearTimeout(alive);
    assert.equal(timers.pendingCount, 0);
  });

  it('advanceFiring fires a chain of delays inside the span, each scheduled by the one before', async () => {
    const clock = new ControlledClock(new ManualClock(0));
    clock.freeze();
    const timers = new ClockTimers(clock);
    const steps: number[] = [];
    void (async () => {
      await timers.delay(100);
      steps.push(clock.now());
      await timers.delay(300);
      steps.push(clock.now());
    })();
    await advanceFiring(clock, timers, 1_000, settle);
    assert.deepEqual(steps, [100, 400]);
    assert.equal(clock.now(), 1_000);
  });
});

describe('parseGoDuration', () => {
  it('reads Go durations in milliseconds', () => {
    assert.deepEqual(
      ['1h', '30s', '1h30m', '1.5h', '250ms', '0', '1m0.5s', '+2s'].map((text) => parseGoDuration(text)),
      [{ ms: 3_600_000 }, { ms: 30_000 }, { ms: 5_400_000 }, { ms: 5_400_000 }, { ms: 250 }, { ms: 0 }, { ms: 60_500 }, { ms: 2_000 }],
    );
  });

  it("refuses what Go refuses, with Go's messages", () => {
    assert.deepEqual(parseGoDuration('1x'), { error: 'time: unknown unit "x" in duration "1x"' });
    assert.deepEqual(parseGoDuration('10'), { error: 'time: missing unit in duration "10"' });
    assert.deepEqual(parseGoDuration(''), { error: 'time: invalid duration ""' });
    assert.deepEqual(parseGoDuration('h'), { error: 'time: invalid duration "h"' });
    assert.deepEqual(parseGoDuration('.s'), { error: 'time: invalid duration ".s"' });
    assert.deepEqual(parseGoDuration('-1h'), { error: 'time: negative duration "-1h"' });
  });
});
