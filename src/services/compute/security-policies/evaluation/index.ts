/**
 * The Cloud Armor evaluation engine: pure (no HTTP, no store), it decides what a security policy
 * does with a request, as the what-if API, `fogbank policy test` and `fogbank guard` need it.
 * Semantics, counting model and what is not evaluated locally: docs/compute.md, "Evaluating policies".
 */
export { compilePolicy, PolicyNotEvaluableError, type CompiledPolicy, type EvaluatorOptions } from './compile-policy.ts';
export type { CompiledRule } from './compile-rule.ts';
export type {
  ConfiguredAction,
  Decision,
  DecidingRule,
  HeaderToAdd,
  Outcome,
  ProxyResponse,
  RateLimitAction,
  RateLimitOutcome,
  RateLimitReport,
  RuleExplanation,
  SecurityPolicyRecord,
  SecurityPolicyRequestData,
} from './decision.ts';
export { denyPage, DENY_PAGE_CONTENT_TYPE } from './deny-page.ts';
export { RateLimitState, DEFAULT_RATE_LIMIT_KEYS } from './rate-limit-state.ts';
export { readTrafficRequest } from './read-traffic-request.ts';
export { TrafficRequestError } from './request-view.ts';
export type { RecaptchaTokens, TrafficRequest } from './traffic-request.ts';
export { readLatin1Utf8 } from './utf8-text.ts';
export type { WafUnknown } from './unevaluated-calls.ts';
// What a proxy can write of a rule's header action: the API's own check, for a policy stored before it refused the rest.
export { headerActionProblem, type HeaderActionProblem } from '../check-header-action.ts';
