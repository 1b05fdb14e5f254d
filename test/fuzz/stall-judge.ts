/**
 * Judging the fuzzer's /healthz stalls against a bare node:http heartbeat probed side by side,
 * the same way (health-probe.ts): on a loaded machine both pause together, and only the part of
 * a probe's wait the heartbeat did not share is fogbank's own. A busy machine also stretches the
 * work fogbank does (a family's first build takes three times as long when three processes want
 * each core), which an idle heartbeat does not feel: so fogbank's part is also at most the CPU
 * time its main thread (where its event loop runs) used while the probe waited, when known. Pure, so it is tested alone
 * (stall-judge.test.ts).
 */

/** ProbeSample is one probe: when it was sent and when its answer (or error) arrived, in performance.now() milliseconds. */
export interface ProbeSample {
  readonly sentAt: number;
  readonly answeredAt: number;
  /** cpuMs is the CPU time the probed process used from send to answer, when it could be read (same process throughout). */
  readonly cpuMs?: number;
}

/** ProbeRecord is what one probe loop saw: its samples in order, the loop sending one probe, then pausing `intervalMs`, then the next. */
export interface ProbeRecord {
  readonly startedAt: number;
  readonly intervalMs: number;
  readonly samples: readonly ProbeSample[];
}

/** Stall is a fogbank probe whose own wait, less what the heartbeat was held up meanwhile, passed the limit. */
export interface Stall {
  readonly sentAt: number;
  /** waitedMs is how long fogbank's probe waited. */
  readonly waitedMs: number;
  /** heartbeatHeldMs is how long, within that wait, the heartbeat was held up too. */
  readonly heartbeatHeldMs: number;
  /** cpuMs is the CPU time fogbank's process used during the wait, when known. */
  readonly cpuMs: number | undefined;
  /** ownMs is fogbank's part: waitedMs less heartbeatHeldMs, and at most cpuMs. */
  readonly ownMs: number;
}

/**
 * heldUp is how long within [from, to] the loop of `record` was held up: from the moment its next
 * probe was due (the previous answer plus the interval, or the start) to that probe's answer —
 * the probe's own wait and any lateness of the client's timer, so a pause of the probing process
 * counts as well as one of the server.
 */
export function heldUp(record: ProbeRecord, from: number, to: number): number {
  let held = 0;
  let due = record.startedAt;
  for (const sample of record.samples) {
    const start = Math.max(due, from);
    const end = Math.min(sample.answeredAt, to);
    if (end > start) held += end - start;
    if (sample.answeredAt >= to) break;
    due = sample.answeredAt + record.intervalMs;
  }
  return held;
}

/** worstWait is the longest any one probe of `record` waited for its answer. */
export function worstWait(record: ProbeRecord): number {
  return record.samples.reduce((worst, sample) => Math.max(worst, sample.answeredAt - sample.sentAt), 0);
}

/**
 * judgeStalls lists fogbank's probes that waited over `limitMs` of their own: their wait less
 * the time the heartbeat was held up during it, and no more than the CPU time fogbank used
 * meanwhile. Both paused → not a stall; fogbank alone, busy all along → a stall; fogbank alone
 * but mostly waiting for a core → not a stall.
 */
export function judgeStalls(fogbank: ProbeRecord, heartbeat: ProbeRecord, limitMs: number): Stall[] {
  const stalls: Stall[] = [];
  for (const sample of fogbank.samples) {
    const waitedMs = sample.answeredAt - sample.sentAt;
    if (waitedMs <= limitMs) continue;
    const heartbeatHeldMs = heldUp(heartbeat, sample.sentAt, sample.answeredAt);
    const ownMs = Math.min(waitedMs - heartbeatHeldMs, sample.cpuMs ?? Number.POSITIVE_INFINITY);
    if (ownMs > limitMs) stalls.push({ sentAt: sample.sentAt, waitedMs, heartbeatHeldMs, cpuMs: sample.cpuMs, ownMs });
  }
  return stalls;
}

/**
 * requestOwnMs is fogbank's part of one slow request's wait: the CPU time fogbank's process (all
 * its threads) used meanwhile, plus the time the machine's cores stood idle (fogbank could have
 * run then and did not, as when it waits on a timer), and never more than the wait. On a machine
 * that another test saturates, a large body crosses loopback in many scheduler slices while
 * fogbank computes little: that wait is the machine's. Unknown figures count the whole wait.
 */
export function requestOwnMs(waitedMs: number, cpuMs: number | undefined, idleMs: number | undefined): number {
  if (cpuMs === undefined || idleMs === undefined) return waitedMs;
  return Math.min(waitedMs, Math.max(0, cpuMs) + Math.max(0, idleMs));
}
