import type { CompiledRule } from './compile-rule.ts';
import type { RateLimitAction, RateLimitReport, RuleExplanation, SecurityPolicyRecord } from './decision.ts';
import type { RuleMatch } from './match-rule.ts';
import type { Effect } from './rule-action.ts';

/** RuleVerdict is what a matching rule does with the request. */
export interface RuleVerdict {
  readonly rule: CompiledRule;
  readonly match: RuleMatch;
  readonly effect: Effect;
  readonly rateLimit?: RateLimitReport;
  readonly rateLimitAction?: RateLimitAction;
  /** explanation replaces the match's when the verdict adds to it (rate-limit counts). */
  readonly explanation?: RuleExplanation;
}

/** recordOf is the request log's `enforcedSecurityPolicy` / `previewSecurityPolicy` for a verdict. */
export function recordOf(name: string, verdict: RuleVerdict): SecurityPolicyRecord {
  const wafSets = verdict.match.wafSets;
  return {
    name,
    priority: verdict.rule.priority,
    configuredAction: verdict.effect.configuredAction,
    outcome: verdict.effect.outcome,
    ...(wafSets === undefined ? {} : { preconfiguredExprIds: wafSets }),
    ...(verdict.rateLimitAction === undefined ? {} : { rateLimitAction: verdict.rateLimitAction }),
  };
}
