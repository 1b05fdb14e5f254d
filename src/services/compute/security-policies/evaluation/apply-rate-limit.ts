import type { CompiledRateLimit, CompiledRule } from './compile-rule.ts';
import type { RateLimitReport } from './decision.ts';
import type { RuleMatch } from './match-rule.ts';
import { rateLimitKey } from './rate-limit-key.ts';
import type { RateLimitState } from './rate-limit-state.ts';
import type { RequestView } from './request-view.ts';
import type { RuleVerdict } from './rule-verdict.ts';

/**
 * applyRateLimit counts a request that matched a rate-limited rule (throttle, rate_based_ban,
 * fairshare) in its key's bucket and turns the count into the rule's verdict: under the
 * threshold the conform action (allow) decides, and evaluation stops there (docs:
 * rate-limiting-overview); over it, or while the key is banned, the exceed action. Buckets are
 * named by policy (its resource path), rule priority and key, so they survive a recompile of the policy.
 * Without `explain` (a proxy) the count is not written into the rule's explanation.
 */
export function applyRateLimit(
  rule: CompiledRule,
  limit: CompiledRateLimit,
  match: RuleMatch,
  view: RequestView,
  policyIdentity: string,
  now: number,
  state: RateLimitState,
  explain = true,
): RuleVerdict {
  const key = rateLimitKey(view, limit.components);
  const hit = state.hit(`${policyIdentity}\u0000${rule.priority}\u0000${key.type}\u0000${key.value}`, now, limit.spec);
  const conform = hit.outcome === 'RATE_LIMIT_THRESHOLD_CONFORM';
  const banned = hit.banUntil !== undefined && now < hit.banUntil;
  const report: RateLimitReport = {
    key: key.value,
    keyType: key.type,
    count: hit.count,
    threshold: limit.threshold,
    intervalSec: limit.intervalSec,
    windowStart: hit.windowStart,
    ...(banned ? { banned: true, banUntil: hit.banUntil } : {}),
  };
  const rateLimitAction = { ...(key.logged === undefined ? {} : { key: key.logged }), outcome: hit.outcome };
  const effect = conform ? limit.conform : limit.exceed;
  if (!explain) return { rule, match, effect, rateLimit: report, rateLimitAction };
  const keyText = key.type === 'ALL' ? 'the ALL bucket' : `key ${key.type} ${JSON.stringify(key.value)}`;
  const counted =
    hit.outcome === 'BAN_THRESHOLD_EXCEED' && !conform && hit.banUntil !== undefined
      ? `banned until ${new Date(hit.banUntil).toISOString()}`
      : `${hit.count} of ${limit.threshold} in the ${limit.intervalSec} s window`;
  return {
    rule,
    match,
    effect,
    rateLimit: report,
    rateLimitAction,
    explanation: { ...match.explanation, detail: `${match.explanation.detail}; rate limit ${keyText}: ${counted} → ${hit.outcome}` },
  };
}
