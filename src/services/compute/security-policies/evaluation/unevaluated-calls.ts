/**
 * The functions fogbank cannot evaluate on a laptop: Google's preconfigured WAF signature sets
 * (no maintained OWASP CRS engine runs in Node here, and Google's sets are not a CRS release),
 * threat-intelligence feeds and address groups (Google-managed lists). Each call decides as the
 * caller's `wafUnknown` says and is noted on the evaluation's trace, so a decision never rests
 * silently on a guess.
 */

/** WafUnknown is how a call that cannot be evaluated locally decides: `match` (true) or `no-match` (false). */
export type WafUnknown = 'match' | 'no-match';

/** UnevaluatedCall is one such call that evaluation reached. */
export interface UnevaluatedCall {
  /** function is the function's name (`evaluatePreconfiguredWaf`). */
  readonly function: string;
  /** argument is its first argument: the set, feed or group name. */
  readonly argument: string;
}

/** EvaluationTrace collects what one expression evaluation reached that needs reporting. */
export interface EvaluationTrace {
  readonly wafUnknown: WafUnknown;
  readonly unevaluated: UnevaluatedCall[];
  /** notes are lenient readings worth telling (base64Decode of invalid input read as ""). */
  readonly notes?: string[];
}

// Evaluation is synchronous, so the trace of the one evaluation running is a plain slot.
let active: EvaluationTrace | undefined;

/** withTrace runs `evaluate` with `trace` receiving the calls it reaches. */
export function withTrace<T>(trace: EvaluationTrace, evaluate: () => T): T {
  const outer = active;
  active = trace;
  try {
    return evaluate();
  } finally {
    active = outer;
  }
}

/** unevaluatedCall records a call on the active trace and returns the value `wafUnknown` gives it. */
export function unevaluatedCall(name: string, argument: string): boolean {
  if (active === undefined) return false;
  active.unevaluated.push({ function: name, argument });
  return active.wafUnknown === 'match';
}

/** noteOnTrace adds a note to the active trace, if there is one. */
export function noteOnTrace(note: string): void {
  active?.notes?.push(note);
}

/** NOTED_FUNCTIONS are functions that may add a note, so expressions calling them run with a trace. */
export const NOTED_FUNCTIONS: readonly string[] = ['base64Decode'];

/** UNEVALUATED_FUNCTIONS are the names of the functions handled this way. */
export const UNEVALUATED_FUNCTIONS: readonly string[] = [
  'evaluatePreconfiguredWaf',
  'evaluatePreconfiguredExpr',
  'evaluateThreatIntelligence',
  'evaluateAddressGroup',
];

/** WAF_FUNCTIONS are those whose first argument is a preconfigured set (reported as preconfiguredExprIds). */
export const WAF_FUNCTIONS: readonly string[] = ['evaluatePreconfiguredWaf', 'evaluatePreconfiguredExpr'];
