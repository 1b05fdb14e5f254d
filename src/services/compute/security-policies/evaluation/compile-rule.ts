import type { StoredRule } from '../prepare-rule.ts';
import { compileExpression, type CompiledExpression } from './compile-expression.ts';
import { parseIpRange, type IpRange } from './ip-match.ts';
import { keyComponents, type KeyComponent } from './rate-limit-key.ts';
import type { RateLimitSpec } from './rate-limit-state.ts';
import { allowEffect, blockEffect, RATE_LIMIT_ACTIONS, type Effect, type RedirectOptions } from './rule-action.ts';
import type { HeaderToAdd } from './decision.ts';
import type { RuleMatch } from './match-rule.ts';

/**
 * A validated rule turned into what evaluation needs: its matcher (source IP ranges or a compiled
 * expression), what its action does, its rate limit and the headers it adds.
 */

/** Matcher is how a rule matches: SRC_IPS_V1 ranges, an expression, or nothing (a network-only match). */
export type Matcher =
  | { readonly kind: 'ips'; readonly texts: readonly string[]; readonly ranges: readonly IpRange[] }
  | { readonly kind: 'expr'; readonly expression: CompiledExpression }
  | { readonly kind: 'none'; readonly why: string };

/** CompiledRateLimit is a rate-limited rule's counting and exceed behaviour. */
export interface CompiledRateLimit {
  readonly spec: RateLimitSpec;
  readonly components: readonly KeyComponent[];
  readonly threshold: number;
  readonly intervalSec: number;
  readonly conform: Effect;
  readonly exceed: Effect;
}

/** CompiledRule is one rule ready to evaluate. */
export interface CompiledRule {
  readonly priority: number;
  readonly action: string;
  readonly preview: boolean;
  readonly matcher: Matcher;
  /** effect is what a match does; rate-limited rules decide per request through rateLimit. */
  readonly effect: Effect;
  readonly rateLimit?: CompiledRateLimit;
  readonly headersToAdd: readonly HeaderToAdd[];
  /** plain are the rule's answers for a plain true or false, shared by every request that gets one. */
  readonly plain: { readonly matched: RuleMatch; readonly unmatched: RuleMatch };
}

/** compileRule compiles a validated rule. */
export function compileRule(rule: StoredRule): CompiledRule {
  const action = rule.action ?? 'allow';
  const matcher = matcherOf(rule);
  const plainMatch = (matched: boolean): RuleMatch => ({
    matched,
    explanation: { priority: rule.priority, preview: rule.preview, matched, detail: plainDetail(matcher, matched) },
  });
  const base = { priority: rule.priority, action, preview: rule.preview, matcher, plain: { matched: plainMatch(true), unmatched: plainMatch(false) } };
  const headersToAdd = (rule.headerAction?.requestHeadersToAdds ?? []).map((header) => ({ name: header.headerName ?? '', value: header.headerValue ?? '' }));
  const limited = RATE_LIMIT_ACTIONS[action];
  if (limited !== undefined && rule.rateLimitOptions !== undefined) {
    const options = rule.rateLimitOptions;
    const threshold = options.rateLimitThreshold ?? {};
    const count = threshold.count ?? 1;
    const intervalSec = threshold.intervalSec ?? 60;
    const banThreshold = options.banThreshold;
    const spec: RateLimitSpec = {
      count,
      intervalMs: intervalSec * 1000,
      ...(action === 'rate_based_ban'
        ? {
            ban: {
              durationMs: (options.banDurationSec ?? 0) * 1000,
              ...(banThreshold?.count === undefined
                ? {}
                : { threshold: { count: banThreshold.count, intervalMs: (banThreshold.intervalSec ?? intervalSec) * 1000 } }),
            },
          }
        : {}),
    };
    const exceed =
      blockEffect(options.exceedAction ?? 'deny(429)', options.exceedRedirectOptions as RedirectOptions | undefined, limited) ??
      blockEffect('deny(429)', undefined, limited);
    const conform = allowEffect(limited);
    return {
      ...base,
      effect: conform,
      rateLimit: { spec, components: keyComponents(options), threshold: count, intervalSec, conform, exceed: exceed as Effect },
      headersToAdd,
    };
  }
  const effect = action === 'allow' ? allowEffect('ALLOW') : (blockEffect(action, rule.redirectOptions as RedirectOptions | undefined) ?? allowEffect('ALLOW'));
  return { ...base, effect, headersToAdd };
}

/** plainDetail is the explanation shared by every request a rule decides without a breakdown. */
function plainDetail(matcher: Matcher, matched: boolean): string {
  if (matcher.kind === 'none') return matcher.why;
  if (matcher.kind === 'ips') return `origin.ip is ${matched ? 'in' : 'in none of'} srcIpRanges [${matcher.texts.join(', ')}]`;
  return `expression is ${matched}`;
}

function matcherOf(rule: StoredRule): Matcher {
  const match = rule.match;
  if (match?.versionedExpr === 'SRC_IPS_V1') {
    const texts = match.config?.srcIpRanges ?? [];
    const ranges = texts.map((text) => parseIpRange(text)).filter((range): range is IpRange => range !== undefined);
    return { kind: 'ips', texts, ranges };
  }
  const text = match?.expr?.expression;
  if (text !== undefined) return { kind: 'expr', expression: compileExpression(text) };
  return { kind: 'none', why: 'the rule has no HTTP match (networkMatch applies to packets)' };
}
