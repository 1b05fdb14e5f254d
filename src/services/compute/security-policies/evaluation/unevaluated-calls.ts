import { BoundedMap } from '../../../../lib/bounded-map.ts';
import type { WafCall } from '../waf/waf-call.ts';

/**
 * The calls evaluation cannot answer by itself. Preconfigured WAF sets are answered from the WAF
 * engine's findings for the request (waf/: the OWASP Core Rule Set through libmodsecurity3) when
 * the caller has them; without them, for the sets CRS 3.3 lacks, and for threat-intelligence feeds
 * and address groups (Google-managed lists), each call decides as the caller's `wafUnknown` says
 * and is noted on the evaluation's trace, so a decision never rests silently on a guess.
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

/**
 * WafVerdict is what the WAF engine's findings say of one preconfigured-set call: the signatures
 * that matched (none: the call is false) with a line for the explanation, or why the call cannot be
 * evaluated here (a set CRS 3.3 lacks, an engine failure), which then decides as `wafUnknown` says.
 */
export type WafVerdict = { readonly signatures: readonly string[]; readonly detail?: string } | { readonly unevaluated: string };

/** WafResolver answers a rule's preconfigured-set calls from the request's engine findings. */
export type WafResolver = (call: WafCall) => WafVerdict;

/** EvaluationTrace collects what one expression evaluation reached that needs reporting. */
export interface EvaluationTrace {
  readonly wafUnknown: WafUnknown;
  readonly unevaluated: UnevaluatedCall[];
  /** notes are lenient readings worth telling (base64Decode of invalid input read as ""). */
  readonly notes?: string[];
  /** waf answers the rule's WAF calls; absent, they are not evaluated (no engine findings for this request). */
  readonly waf?: WafResolver;
  /** signatures collect the WAF signatures that matched (the log's preconfiguredExprIds). */
  readonly signatures?: string[];
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

const calls = new BoundedMap<string, WafCall>(4096);

/**
 * wafCallResult answers a WAF call (compiled to `@armor_waf(key)`, the key being the call as JSON):
 * from the trace's findings when the request has them, else as an unevaluated call.
 */
export function wafCallResult(key: string): boolean {
  let call = calls.get(key);
  if (call === undefined) {
    call = JSON.parse(key) as WafCall;
    calls.set(key, call);
  }
  if (active === undefined) return false;
  const verdict: WafVerdict = active.waf === undefined ? { unevaluated: '' } : active.waf(call);
  if ('unevaluated' in verdict) {
    if (verdict.unevaluated !== '') active.notes?.push(verdict.unevaluated);
    active.unevaluated.push({ function: call.function, argument: call.set });
    return active.wafUnknown === 'match';
  }
  if (verdict.detail !== undefined) active.notes?.push(verdict.detail);
  active.signatures?.push(...verdict.signatures);
  return verdict.signatures.length > 0;
}

/** WAF_CALL is the function a WAF call with a literal set is compiled to (compile-expression.ts). */
export const WAF_CALL = '@armor_waf';

/** noteOnTrace adds a note to the active trace, if there is one. */
export function noteOnTrace(note: string): void {
  active?.notes?.push(note);
}

/** NOTED_FUNCTIONS are functions that may add a note, so expressions calling them run with a trace. */
export const NOTED_FUNCTIONS: readonly string[] = ['base64Decode', WAF_CALL];

/** UNEVALUATED_FUNCTIONS are the names of the functions handled this way. */
export const UNEVALUATED_FUNCTIONS: readonly string[] = [
  'evaluatePreconfiguredWaf',
  'evaluatePreconfiguredExpr',
  'evaluateThreatIntelligence',
  'evaluateAddressGroup',
];

/** WAF_FUNCTIONS are those whose first argument is a preconfigured set (reported as preconfiguredExprIds). */
export const WAF_FUNCTIONS: readonly string[] = ['evaluatePreconfiguredWaf', 'evaluatePreconfiguredExpr'];
