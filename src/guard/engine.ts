/**
 * The evaluation engine the guard enforces with: compute's pure security-policy evaluation
 * (services/compute/security-policies/evaluation/), the same code the what-if API runs, so the
 * guard and `fogbank policy test` never disagree. Loaded only by `fogbank guard`.
 */
export {
  compilePolicy,
  type CompiledPolicy,
  type Decision,
  DENY_PAGE_CONTENT_TYPE,
  denyPage,
  RateLimitState,
  readLatin1Utf8,
  TrafficRequestError,
  type TrafficRequest,
} from '../services/compute/security-policies/evaluation/index.ts';
