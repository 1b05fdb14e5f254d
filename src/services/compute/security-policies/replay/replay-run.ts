/**
 * One policy over the replayed requests, in recorded order, on a clock of its own that reads each
 * request's recorded time, with counters of its own: rate limits open windows, cross thresholds
 * and ban as they would have with the traffic as it came. Preconfigured WAF calls are answered by
 * the WAF engine (the same inspection the guard and the what-if API run), inspections first,
 * decisions then in order.
 *
 * Inspections go a few at a time, as many as keep the engine's threads busy without queueing the
 * whole recording at once (each thread loads the Core Rule Set in turn: waf/rules-load-lock.ts).
 */
import type { CompiledPolicy } from '../evaluation/compile-policy.ts';
import type { Decision } from '../evaluation/decision.ts';
import { TrafficRequestError } from '../evaluation/request-view.ts';
import type { WafFindings } from '../waf/findings.ts';
import type { WafEngine } from '../waf/waf-engine.ts';
import { badInput } from '../what-if-body.ts';
import type { ReplayedRequest } from './replay-body.ts';

/** INSPECTIONS_AT_ONCE is how many inspections wait on the engine at once. */
const INSPECTIONS_AT_ONCE = 4;

/** SimulatedClock is the replay's clock: it reads whatever time the request being decided was sent at. */
export class SimulatedClock {
  #now: number;
  constructor(start: number) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  set(time: number): void {
    this.#now = time;
  }
}

/** inspectAll runs the requests through the policy's WAF plan (undefined when it has none). */
export async function inspectAll(compiled: CompiledPolicy, requests: readonly ReplayedRequest[], engine: () => WafEngine): Promise<WafFindings[] | undefined> {
  const plan = compiled.wafPlan;
  if (plan === undefined) return undefined;
  const inspector = engine();
  const findings: WafFindings[] = [];
  for (let i = 0; i < requests.length; i += INSPECTIONS_AT_ONCE) {
    const slice = requests.slice(i, i + INSPECTIONS_AT_ONCE);
    findings.push(...(await Promise.all(slice.map((each) => inspector.inspect(plan, each.request)))));
  }
  return findings;
}

/** decideAll decides each request at its time on `clock` (the clock the policy was compiled with), in order. */
export function decideAll(
  compiled: CompiledPolicy,
  requests: readonly ReplayedRequest[],
  times: readonly number[],
  clock: SimulatedClock,
  findings: readonly WafFindings[] | undefined,
): Decision[] {
  return requests.map((each, i) => {
    clock.set(times[i]!);
    try {
      return compiled.evaluate(each.request, findings?.[i]);
    } catch (error) {
      if (error instanceof TrafficRequestError) throw badInput(`"requests[${i}]": ${error.message}`);
      throw error;
    }
  });
}

/**
 * replayTimes gives each request its time: its own, else the one before it (the first without one
 * takes `start`); times that go backwards (a log written as exchanges ended) are held at the
 * latest seen, so no window opens twice.
 */
export function replayTimes(requests: readonly ReplayedRequest[], start: number): number[] {
  let last = requests.find((each) => each.time !== undefined)?.time ?? start;
  return requests.map((each) => {
    if (each.time !== undefined && each.time > last) last = each.time;
    return last;
  });
}
