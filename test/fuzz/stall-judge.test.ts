import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldUp, judgeStalls, type ProbeRecord, type ProbeSample, requestOwnMs, worstWait } from './stall-judge.ts';

const INTERVAL = 100;

/** steady is a probe loop answering every probe after `waitMs`, from 0 to `untilMs`, except the waits given by send time. */
function steady(untilMs: number, waitMs: number, slow: ReadonlyMap<number, number> = new Map()): ProbeRecord {
  const samples: ProbeSample[] = [];
  let at = 0;
  while (at < untilMs) {
    const wait = slow.get(at) ?? waitMs;
    samples.push({ sentAt: at, answeredAt: at + wait });
    at += wait + INTERVAL;
  }
  return { startedAt: 0, intervalMs: INTERVAL, samples };
}

describe("judging the fuzzer's /healthz stalls against a bare heartbeat beside it", () => {
  it('counts nothing when no probe waited over the limit', () => {
    assert.deepEqual(judgeStalls(steady(5000, 2), steady(5000, 1), 1000), []);
  });

  it('is not a stall when both paused together (a busy machine)', () => {
    // fogbank's probe sent at 1020 waits 1148 ms; the heartbeat's sent at 1010 waits 1100 ms.
    const fogbank = steady(5000, 2, new Map([[1020, 1148]]));
    const heartbeat = steady(5000, 1, new Map([[1010, 1100]]));
    assert.ok(worstWait(fogbank) > 1000);
    assert.deepEqual(judgeStalls(fogbank, heartbeat, 1000), []);
  });

  it('is a stall when fogbank alone paused', () => {
    const fogbank = steady(5000, 2, new Map([[1020, 1148]]));
    const stalls = judgeStalls(fogbank, steady(5000, 1), 1000);
    assert.equal(stalls.length, 1);
    assert.equal(stalls[0]!.waitedMs, 1148);
    assert.ok(stalls[0]!.ownMs > 1000 && stalls[0]!.heartbeatHeldMs < 20, JSON.stringify(stalls[0]));
  });

  it('is a stall when fogbank alone paused busy, and not when it mostly waited for a core (its CPU time is its part at most)', () => {
    const waited = (cpuMs: number): ProbeRecord => ({
      startedAt: 0,
      intervalMs: INTERVAL,
      samples: [
        { sentAt: 0, answeredAt: 2, cpuMs: 0 },
        { sentAt: 102, answeredAt: 2802, cpuMs },
      ],
    });
    const busy = judgeStalls(waited(2600), steady(4000, 1), 1000);
    assert.equal(busy.length, 1);
    assert.equal(busy[0]!.cpuMs, 2600);
    assert.ok(busy[0]!.ownMs > 2500, JSON.stringify(busy[0]));
    // 2.7 s of waiting, 450 ms of it computing: a family's first build on a machine three times oversubscribed.
    assert.deepEqual(judgeStalls(waited(450), steady(4000, 1), 1000), []);
  });

  it("is a stall when fogbank paused much longer than the heartbeat did: only the shared part is the machine's", () => {
    const fogbank = steady(8000, 2, new Map([[1020, 3000]]));
    const heartbeat = steady(8000, 1, new Map([[1010, 1200]]));
    const stalls = judgeStalls(fogbank, heartbeat, 1000);
    assert.equal(stalls.length, 1);
    assert.ok(stalls[0]!.ownMs > 1000 && stalls[0]!.ownMs < 2000, JSON.stringify(stalls[0]));
  });

  it("does not credit a heartbeat pause outside fogbank's wait", () => {
    const fogbank = steady(8000, 2, new Map([[4080, 1148]]));
    // The heartbeat paused earlier, from 1010 to 2210: over before fogbank's probe was sent.
    const heartbeat = steady(8000, 1, new Map([[1010, 1200]]));
    assert.equal(judgeStalls(fogbank, heartbeat, 1000).length, 1);
  });

  it('counts a pause of the probing process as the heartbeat held up: its next probe went out late', () => {
    // The heartbeat answered at 1001, was due again at 1101 but only sent at 2200 (the client's timer was late).
    const heartbeat: ProbeRecord = {
      startedAt: 0,
      intervalMs: INTERVAL,
      samples: [
        { sentAt: 0, answeredAt: 1 },
        { sentAt: 1000, answeredAt: 1001 },
        { sentAt: 2200, answeredAt: 2201 },
      ],
    };
    assert.equal(heldUp(heartbeat, 1050, 2300), 2201 - 1101);
    const fogbank: ProbeRecord = { startedAt: 0, intervalMs: INTERVAL, samples: [{ sentAt: 1050, answeredAt: 2210 }] };
    assert.deepEqual(judgeStalls(fogbank, heartbeat, 1000), []);
  });
});

describe("judging a fuzzed request's own slowness", () => {
  it('is the whole wait when fogbank computed throughout', () => {
    assert.equal(requestOwnMs(1200, 1150, 30), 1180);
  });
  it('is the whole wait when fogbank waited while cores stood idle (a timer, not the machine)', () => {
    assert.equal(requestOwnMs(1500, 10, 2900), 1500);
  });
  it('is small when the machine was saturated and fogbank barely ran (a large body through a busy loopback)', () => {
    assert.equal(requestOwnMs(1135, 90, 120), 210);
  });
  it('is the whole wait when a figure is unknown', () => {
    assert.equal(requestOwnMs(1135, undefined, 120), 1135);
    assert.equal(requestOwnMs(1135, 90, undefined), 1135);
  });
});
