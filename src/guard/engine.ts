/**
 * The evaluation engine the guard enforces with: compute's pure security-policy evaluation
 * (through the family's face, services/compute/public-evaluation.ts), the same code the what-if API runs, so the
 * guard and `fogbank policy test` never disagree. Loaded only by `fogbank guard`.
 */
export {
  compilePolicy,
  type CompiledPolicy,
  type EvaluatorOptions,
  type Decision,
  DENY_PAGE_CONTENT_TYPE,
  denyPage,
  headerActionProblem,
  RateLimitState,
  readLatin1Utf8,
  TrafficRequestError,
  type TrafficRequest,
  WafEngine,
  type WafFindings,
} from '../services/compute/public-evaluation.ts';
