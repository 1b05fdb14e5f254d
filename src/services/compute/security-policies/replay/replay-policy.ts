/**
 * `POST /_fogbank/securityPolicies:replay` on compute's side (issue 39): the recorded requests
 * evaluated under the policy in force (read from the store now) and under the proposed one, each
 * on a simulated clock of its own reading the recorded times and with counters of its own, the
 * WAF engine answering preconfigured calls for both; the answer is the diff (diff.ts) and the
 * rule-coverage table (rule-coverage.ts). Nothing is stored and no live counter is touched.
 */
import { PolicyEvaluationError } from '../../../../core/policy-evaluation.ts';
import { ComputeError } from '../../shared/errors.ts';
import type { Scope } from '../../shared/locations.ts';
import { compilePolicy, type CompiledPolicy, PolicyNotEvaluableError } from '../evaluation/compile-policy.ts';
import { RateLimitState } from '../evaluation/rate-limit-state.ts';
import { policyPath, type StoredPolicy } from '../policy.ts';
import type { WafEngine } from '../waf/waf-engine.ts';
import { badInput, type PolicyName } from '../what-if-body.ts';
import { editedPolicy } from './proposed-policy.ts';
import { type ReplayedRequest, readReplayBody } from './replay-body.ts';
import { diffOutcomes } from './replay-diff.ts';
import { outcomeOf } from './replay-outcome.ts';
import { decideAll, inspectAll, replayTimes, SimulatedClock } from './replay-run.ts';
import { ruleCoverage } from './rule-coverage.ts';

/** ReplayDeps are what a replay reads: the store's policy, its wire form, the WAF engine, the server's time (for requests with none). */
export interface ReplayDeps {
  load(name: PolicyName): Promise<StoredPolicy | undefined>;
  wireOf(policy: StoredPolicy): Record<string, unknown>;
  engine(): WafEngine;
  now(): number;
}

/** Side is one policy's side of a replay: its compiled form and clock. */
interface Side {
  readonly compiled: CompiledPolicy;
  readonly clock: SimulatedClock;
}

/** sideOf compiles one side with a clock and counters of its own, or throws the 400 naming it. */
function sideOf(wire: unknown, scope: Scope, wafUnknown: 'match' | 'no-match', start: number, what: string): Side {
  const clock = new SimulatedClock(start);
  try {
    return { compiled: compilePolicy(wire, { clock, wafUnknown, rateLimits: new RateLimitState(), scope, explain: false }), clock };
  } catch (error) {
    if (error instanceof ComputeError || error instanceof PolicyNotEvaluableError) throw badInput(`${what}: ${error.message}`);
    throw error;
  }
}

/** run decides every request on one side: inspections first, then decisions in order. */
async function run(side: Side, requests: readonly ReplayedRequest[], times: readonly number[], deps: ReplayDeps) {
  const findings = await inspectAll(side.compiled, requests, deps.engine);
  const failures = new Set(findings?.flatMap((each) => (each.failure === undefined ? [] : [each.failure])) ?? []);
  return { decisions: decideAll(side.compiled, requests, times, side.clock, findings), failures };
}

/** replayPolicy answers a replay body. */
export async function replayPolicy(body: unknown, deps: ReplayDeps): Promise<Record<string, unknown>> {
  const input = readReplayBody(body);
  const name = input.policy;
  const path = policyPath(name.project, name.scope, name.name);
  const current = await deps.load(name);
  if (current === undefined) throw new PolicyEvaluationError(404, `The security policy '${path}' was not found.`);
  const times = replayTimes(input.requests, deps.now());
  const start = times[0] ?? deps.now();
  const before = sideOf(deps.wireOf(current), current.scope, input.wafUnknown, start, `The security policy '${path}' cannot be evaluated`);
  const proposedWire = 'policy' in input.proposed ? input.proposed.policy : deps.wireOf(editedPolicy(current, input.proposed.rules));
  const after = sideOf(proposedWire, current.scope, input.wafUnknown, start, 'policy' in input.proposed ? '"proposed"' : '"rules"');
  // One side after the other: the engine's inspections go one at a time (replay-run.ts).
  const was = await run(before, input.requests, times, deps);
  const now = await run(after, input.requests, times, deps);
  const diff = diffOutcomes(
    input.requests.map((each) => each.request),
    times,
    was.decisions.map(outcomeOf),
    now.decisions.map(outcomeOf),
  );
  const coverage = ruleCoverage(
    before.compiled.rules.map((rule) => rule.priority),
    was.decisions,
    after.compiled.rules.map((rule) => rule.priority),
    now.decisions,
  );
  const wafFailures = [...new Set([...was.failures, ...now.failures])];
  return {
    policy: path,
    evaluated: input.requests.length,
    changed: diff.changed,
    transitions: diff.transitions,
    countsByRule: diff.countsByRule,
    coverage: coverage.coverage,
    neverMatched: coverage.neverMatched,
    ...(wafFailures.length === 0 ? {} : { wafFailures }),
  };
}
