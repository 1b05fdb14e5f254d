import type { Clock } from '../../../../lib/clock.ts';
import type { Scope } from '../../shared/locations.ts';
import { MAX_PRIORITY, type PolicyType } from '../constants.ts';
import { ExpressionCache } from '../expression-cache.ts';
import { buildPolicy } from '../policy-mutations.ts';
import { compileRule, type CompiledRule } from './compile-rule.ts';
import type { Decision, RuleExplanation, SecurityPolicyRequestData } from './decision.ts';
import { matchRule, type RuleMatch } from './match-rule.ts';
import { applyRateLimit } from './apply-rate-limit.ts';
import { recordOf, type RuleVerdict } from './rule-verdict.ts';
import type { Effect } from './rule-action.ts';
import type { RateLimitState } from './rate-limit-state.ts';
import { viewRequest, type RequestView } from './request-view.ts';
import type { TrafficRequest } from './traffic-request.ts';
import type { WafUnknown } from './unevaluated-calls.ts';
import { resolverFor, type WafFindings } from '../waf/findings.ts';
import { wafPlanOf, type WafPlan } from '../waf/policy-plan.ts';
import { blockEffect } from './rule-action.ts';

/**
 * compilePolicy and the evaluation loop: rules in ascending priority, the first matching
 * non-preview rule decides and no rule below it is evaluated; a matching preview rule is
 * reported (the first one only, as `previewSecurityPolicy`) and evaluation goes on
 * (docs: security-policy-overview). Preconfigured WAF calls are answered from the WAF engine's
 * findings when the caller has them (`waf`, from WafEngine.inspect over `wafPlan`); with a body, the
 * body phase follows (bodyPhase below).
 */

/** EvaluatorOptions are what evaluation needs besides the policy. */
export interface EvaluatorOptions {
  /** clock drives rate-limit windows and bans (tests pass a ControlledClock or ManualClock). */
  readonly clock: Clock;
  /** wafUnknown decides the calls fogbank cannot evaluate locally (WAF sets, threat intelligence, address groups). */
  readonly wafUnknown: WafUnknown;
  /** rateLimits holds the counters; pass the same one to the recompiled policy to keep counting. */
  readonly rateLimits: RateLimitState;
  /** explain: when false, explanations carry no per-term breakdown nor the address in IP-range verdicts (cheaper, for a proxy). Default true. */
  readonly explain?: boolean;
  /** fastPaths: when false, every expression runs on the CEL runtime (tests prove the fast closures agree with it). Default true. */
  readonly fastPaths?: boolean;
  /**
   * scope says which policy family the object is, for validation (redirects and header actions
   * are global only). Default: regional when the object has a `region`, else global.
   */
  readonly scope?: Scope;
}

/** CompiledPolicy is a validated policy ready to evaluate requests. */
export interface CompiledPolicy {
  /** name is the policy's name, as the log's `name` shows it. */
  readonly name: string;
  readonly type: PolicyType;
  /** rules are the compiled rules in evaluation order. */
  readonly rules: readonly CompiledRule[];
  /** wafPlan is what the policy asks of the WAF engine; undefined when no rule calls a set the engine evaluates. */
  readonly wafPlan: WafPlan | undefined;
  /**
   * evaluate decides one request (counting it against rate limits); throws TrafficRequestError on a
   * request it cannot read. Without `waf` findings, WAF calls decide as `wafUnknown` says.
   */
  evaluate(request: TrafficRequest, waf?: WafFindings): Decision;
}

// The API's verdicts on expressions, kept across compilations: a live policy is recompiled on every change.
const verdicts = new ExpressionCache();

/** PolicyNotEvaluableError is a valid policy that has nothing to say about HTTP requests (a CLOUD_ARMOR_NETWORK policy). */
export class PolicyNotEvaluableError extends Error {
  override readonly name = 'PolicyNotEvaluableError';
}

/**
 * compilePolicy validates `policy` (a security policy in the compute API's JSON form, as `get`
 * returns it or as an insert body) exactly as the API does, throwing its ComputeError, then
 * compiles every rule once. A policy without a rule at 2147483647 gets the API's default rule.
 */
export function compilePolicy(policy: unknown, options: EvaluatorOptions): CompiledPolicy {
  const scope = options.scope ?? scopeOf(policy);
  const stored = buildPolicy(policy, { project: 'evaluation', scope, id: '0', creationTime: 0, fingerprint: '', expressions: verdicts });
  if (stored.type === 'CLOUD_ARMOR_NETWORK') {
    throw new PolicyNotEvaluableError(`Security policy ${stored.name} is of type CLOUD_ARMOR_NETWORK: it matches packets, not HTTP requests.`);
  }
  const sorted = [...stored.rules].sort((a, b) => a.priority - b.priority);
  const rules = sorted.map(compileRule);
  const wafPlan = wafPlanOf(
    sorted.map((rule, i) => {
      const matcher = rules[i]?.matcher;
      return { stored: rule, calls: matcher?.kind === 'expr' ? matcher.expression.wafCalls : [] };
    }),
    stored.settings['advancedOptionsConfig'],
  );
  const userIpHeaders = readUserIpHeaders(stored.settings['advancedOptionsConfig']);
  const name = stored.name;
  const identity = identityOf(policy, name);
  const explain = options.explain ?? true;
  const fast = options.fastPaths ?? true;
  return {
    name,
    type: stored.type,
    rules,
    wafPlan,
    evaluate(request, waf) {
      const view = viewRequest(request, userIpHeaders);
      const now = options.clock.now();
      const explanation: RuleExplanation[] = [];
      let preview: RuleVerdict | undefined;
      const resolver = (rule: CompiledRule) =>
        waf === undefined || wafPlan === undefined ? undefined : resolverFor(waf.header, wafPlan.ruleKeys.get(rule.priority), waf.failure);
      for (const rule of rules) {
        const match: RuleMatch = matchRule(rule, view, options.wafUnknown, explain, fast, resolver(rule));
        if (!match.matched) {
          explanation.push(match.explanation);
          continue;
        }
        const verdict =
          rule.rateLimit === undefined
            ? { rule, match, effect: rule.effect }
            : applyRateLimit(rule, rule.rateLimit, match, view, identity, now, options.rateLimits, explain);
        explanation.push(verdict.explanation ?? match.explanation);
        if (rule.preview) {
          preview ??= verdict;
          continue;
        }
        if (waf?.body !== undefined && wafPlan !== undefined && verdict.effect.response.kind === 'forward') {
          const body = bodyPhase(rule.priority, view, waf.body, waf.failure);
          if (body !== undefined) return decide(name, view, body.verdict, preview ?? body.preview, [...explanation, ...body.explanation]);
        }
        return decide(name, view, verdict, preview, explanation);
      }
      /**
       * bodyPhase: the header pass let the request through (rule `decidedAt` forwards it); the rules
       * above that rule which call preconfigured sets are evaluated again with the body inspected,
       * and the first non-preview one that matches with a deny or redirect blocks the body: a deny
       * with its status, a redirect as 403 (docs: security-policy-overview), `statusDetails`
       * body_denied_by_security_policy. Rate-limited rules count in the header pass only.
       */
      function bodyPhase(decidedAt: number, view: RequestView, phase: NonNullable<WafFindings['body']>, failure: string | undefined) {
        const plan = wafPlan as WafPlan;
        const seen: RuleExplanation[] = [];
        let bodyPreview: RuleVerdict | undefined;
        for (const rule of rules) {
          if (rule.priority >= decidedAt) break;
          const key = plan.ruleKeys.get(rule.priority);
          if (key === undefined || rule.rateLimit !== undefined) continue;
          const match = matchRule(rule, view, options.wafUnknown, explain, fast, resolverFor(phase, key, failure));
          const blocked = match.matched ? bodyEffect(rule) : undefined;
          if (blocked === undefined) continue;
          const phased = { ...match.explanation, detail: `body phase: ${match.explanation.detail}` };
          seen.push(phased);
          const verdict: RuleVerdict = { rule, match: { ...match, explanation: phased }, effect: blocked };
          if (rule.preview) {
            bodyPreview ??= verdict;
            continue;
          }
          return { verdict, preview: bodyPreview, explanation: seen };
        }
        return undefined;
      }
      // Unreachable for a validated policy (its default rule matches everything); allow, as the API's default rule would.
      const fallback = compileRule({ kind: 'compute#securityPolicyRule', description: '', preview: false, priority: MAX_PRIORITY, action: 'allow' });
      return decide(
        name,
        view,
        {
          rule: fallback,
          match: {
            matched: true,
            explanation: { priority: MAX_PRIORITY, preview: false, matched: true, detail: 'no rule matched: the implicit default rule allows' },
          },
          effect: fallback.effect,
        },
        preview,
        explanation,
      );
    },
  };
}

/** bodyEffect is what a rule matched in the body phase does: its deny, or 403 for a redirect; undefined for an allow. */
function bodyEffect(rule: CompiledRule): Effect | undefined {
  const effect =
    rule.effect.response.kind === 'deny' ? rule.effect : rule.effect.response.kind === 'redirect' ? blockEffect('deny(403)', undefined) : undefined;
  return effect === undefined ? undefined : { ...effect, statusDetails: 'body_denied_by_security_policy' };
}

function decide(name: string, view: RequestView, verdict: RuleVerdict, preview: RuleVerdict | undefined, explanation: RuleExplanation[]): Decision {
  const { rule, effect } = verdict;
  const request = view.request;
  const securityPolicyRequestData: SecurityPolicyRequestData = {
    remoteIpInfo: {
      ipAddress: view.originIp,
      ...(request.regionCode === undefined || request.regionCode === '' ? {} : { regionCode: request.regionCode }),
      ...(request.asn === undefined ? {} : { asn: request.asn }),
    },
    ...(view.userIpSource === undefined ? {} : { userIpInfo: { source: view.userIpSource, ipAddress: view.userIp } }),
    ...(request.tlsJa3Fingerprint === undefined || request.tlsJa3Fingerprint === '' ? {} : { tlsJa3Fingerprint: request.tlsJa3Fingerprint }),
    ...(request.tlsJa4Fingerprint === undefined || request.tlsJa4Fingerprint === '' ? {} : { tlsJa4Fingerprint: request.tlsJa4Fingerprint }),
  };
  return {
    enforcedSecurityPolicy: recordOf(name, verdict),
    ...(preview === undefined ? {} : { previewSecurityPolicy: recordOf(name, preview) }),
    rule: { priority: rule.priority, action: rule.action, preview: rule.preview },
    response: effect.response,
    ...(effect.statusDetails === undefined ? {} : { statusDetails: effect.statusDetails }),
    securityPolicyRequestData,
    headersToAdd: effect.response.kind === 'forward' ? rule.headersToAdd : [],
    ...(verdict.rateLimit === undefined ? {} : { rateLimit: verdict.rateLimit }),
    ...(preview?.rateLimit === undefined ? {} : { previewRateLimit: preview.rateLimit }),
    explanation,
  };
}

/**
 * identityOf names the policy's rate-limit buckets: its resource path from `selfLink`
 * (`projects/p/regions/r/securityPolicies/x`, whatever host the link was made for), so policies of
 * the same name in other projects or regions count apart; the name when there is no link.
 */
function identityOf(policy: unknown, name: string): string {
  const link = typeof policy === 'object' && policy !== null ? (policy as Record<string, unknown>)['selfLink'] : undefined;
  if (typeof link !== 'string') return name;
  const at = link.indexOf('projects/');
  return at === -1 ? name : link.slice(at);
}

function scopeOf(policy: unknown): Scope {
  const region = typeof policy === 'object' && policy !== null ? (policy as Record<string, unknown>)['region'] : undefined;
  if (typeof region !== 'string' || region === '') return { kind: 'global' };
  return { kind: 'region', name: region.slice(region.lastIndexOf('/') + 1) };
}

function readUserIpHeaders(config: unknown): string[] {
  if (typeof config !== 'object' || config === null) return [];
  const headers = (config as Record<string, unknown>)['userIpRequestHeaders'];
  return Array.isArray(headers) ? headers.filter((header): header is string => typeof header === 'string') : [];
}
