/**
 * One request's outcome under one policy, as a replay compares it: what the request got
 * (`effect`: `allow`, `deny-403`, `redirect`) and, in words, how (`action`: `allow`, `deny(403)`,
 * `throttle(allow)`, `throttle(deny-429)`, `rate_based_ban(banned, deny-403)`), with the deciding
 * rule's priority, the WAF signatures that matched, and the rate limit's outcome and count.
 */
import type { Decision } from '../evaluation/decision.ts';

/** ReplayOutcome is a request's outcome under one policy. */
export interface ReplayOutcome {
  readonly action: string;
  /** effect is what the client gets: two outcomes with the same effect are no change. */
  readonly effect: string;
  readonly priority: number;
  readonly preconfiguredExprIds?: readonly string[];
  readonly rateLimit?: { readonly outcome: string; readonly count: number; readonly threshold: number };
}

/** outcomeOf reads a decision into its outcome. */
export function outcomeOf(decision: Decision): ReplayOutcome {
  const response = decision.response;
  const effect =
    response.kind === 'forward'
      ? 'allow'
      : response.kind === 'deny'
        ? `deny-${response.status}`
        : response.location === undefined
          ? 'redirect(recaptcha)'
          : 'redirect';
  const enforced = decision.enforcedSecurityPolicy;
  const limit = enforced.rateLimitAction;
  const rule = decision.rule;
  const action =
    limit !== undefined
      ? `${rule.action}(${limit.outcome === 'BAN_THRESHOLD_EXCEED' ? 'banned, ' : ''}${effect})`
      : response.kind === 'forward'
        ? 'allow'
        : response.kind === 'deny'
          ? `deny(${response.status})`
          : effect;
  const ids = enforced.preconfiguredExprIds;
  return {
    action,
    effect,
    priority: rule.priority,
    ...(ids === undefined || ids.length === 0 ? {} : { preconfiguredExprIds: ids }),
    ...(limit === undefined || decision.rateLimit === undefined
      ? {}
      : { rateLimit: { outcome: limit.outcome, count: decision.rateLimit.count, threshold: decision.rateLimit.threshold } }),
  };
}
