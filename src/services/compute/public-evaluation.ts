/**
 * The compute family's second face: the security-policy evaluation engine (pure: a compiled
 * policy decides a traffic request), as fogbank guard and the admin API's what-if evaluation
 * run it. A face of its own because it loads the rules language (public.ts does not).
 */
export {
  compilePolicy,
  type CompiledPolicy,
  type Decision,
  DENY_PAGE_CONTENT_TYPE,
  denyPage,
  headerActionProblem,
  type HeaderActionProblem,
  type EvaluatorOptions,
  PolicyNotEvaluableError,
  RateLimitState,
  readLatin1Utf8,
  readTrafficRequest,
  TrafficRequestError,
  type TrafficRequest,
} from './security-policies/evaluation/index.ts';
// The WAF engine (libmodsecurity3 with Debian's Core Rule Set, on worker threads) that answers preconfigured WAF calls.
export { WafEngine, wafEngineProblem } from './security-policies/waf/waf-engine.ts';
export type { WafFindings } from './security-policies/waf/findings.ts';
export { MAX_INSPECTION_LIMIT } from './security-policies/waf/inspection-limit.ts';
/** WAF_FAMILIES are Google's preconfigured WAF families with their signature tables (for benches that enable every set). */
export { FAMILIES as WAF_FAMILIES } from './security-policies/waf/signatures.ts';
