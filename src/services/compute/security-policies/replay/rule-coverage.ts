/**
 * The rule-coverage table of a replay: for every rule of either policy, how many replayed requests
 * it matched under the policy in force and under the proposed one (null where the policy has no
 * rule at that priority). A rule is counted when it was evaluated and matched: evaluation stops at
 * the first matching non-preview rule, so a rule below it is not evaluated for that request (as
 * Cloud Armor does), and a preview rule counts each match. `neverMatched` lists the proposed
 * policy's rules no request matched, the default rule included.
 */
import type { Decision } from '../evaluation/decision.ts';

/** CoverageRow is one priority's matches under each policy. */
export interface CoverageRow {
  readonly priority: number;
  readonly matchedBefore: number | null;
  readonly matchedAfter: number | null;
}

/** RuleCoverage is the table and the proposed policy's rules nothing matched. */
export interface RuleCoverage {
  readonly coverage: CoverageRow[];
  readonly neverMatched: number[];
}

/** matchesByRule counts, per priority of `priorities`, the decisions whose explanation says the rule matched (once per request). */
function matchesByRule(priorities: readonly number[], decisions: readonly Decision[]): Map<number, number> {
  const counts = new Map(priorities.map((priority) => [priority, 0]));
  for (const decision of decisions) {
    const matched = new Set<number>();
    for (const step of decision.explanation) if (step.matched) matched.add(step.priority);
    for (const priority of matched) counts.set(priority, (counts.get(priority) ?? 0) + 1);
  }
  return counts;
}

/** ruleCoverage builds the table from each policy's rule priorities and decisions. */
export function ruleCoverage(
  beforeRules: readonly number[],
  before: readonly Decision[],
  afterRules: readonly number[],
  after: readonly Decision[],
): RuleCoverage {
  const was = matchesByRule(beforeRules, before);
  const now = matchesByRule(afterRules, after);
  const priorities = [...new Set([...beforeRules, ...afterRules])].sort((a, b) => a - b);
  return {
    coverage: priorities.map((priority) => ({ priority, matchedBefore: was.get(priority) ?? null, matchedAfter: now.get(priority) ?? null })),
    neverMatched: afterRules.filter((priority) => now.get(priority) === 0).sort((a, b) => a - b),
  };
}
