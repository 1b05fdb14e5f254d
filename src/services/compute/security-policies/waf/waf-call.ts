/**
 * One `evaluatePreconfiguredWaf(set, opts)` or `evaluatePreconfiguredExpr(set, excluded)` call, read
 * from the expression's tree when it is compiled, and the signatures it enables
 * (shared/reference/cloud-armor-waf.md §2; docs: rules-language-reference, rule-tuning):
 *
 * - with `opt_in_rule_ids` (which needs `'sensitivity': 0`) exactly those signatures;
 * - otherwise every signature of sensitivity 1 to `sensitivity` (default 4), less `opt_out_rule_ids`
 *   (sensitivity 0 alone enables nothing);
 * - the deprecated `evaluatePreconfiguredExpr(set, ids)`: every signature less `ids`.
 *
 * A set is true when any enabled signature matched: no anomaly score, no threshold.
 */
import type { Expr } from '../check-expression.ts';
import { MAX_WAF_SENSITIVITY } from '../constants.ts';
import { isUnsupported, resolveSet, type ResolvedSet } from './rule-sets.ts';

/** WafCall is one call as written. */
export interface WafCall {
  readonly function: 'evaluatePreconfiguredWaf' | 'evaluatePreconfiguredExpr';
  readonly set: string;
  readonly sensitivity: number;
  /** optIn is `opt_in_rule_ids`, when given. */
  readonly optIn?: readonly string[];
  /** optOut is `opt_out_rule_ids`, or evaluatePreconfiguredExpr's excluded ids. */
  readonly optOut: readonly string[];
  /** unreadable says why the options could not be read from the text (not literals), if so. */
  readonly unreadable?: string;
}

/** WAF_FUNCTION_NAMES are the calls read this way. */
export const WAF_FUNCTION_NAMES: readonly string[] = ['evaluatePreconfiguredWaf', 'evaluatePreconfiguredExpr'];

/** readWafCall reads a call's arguments; undefined when the set is not a string literal. */
export function readWafCall(name: string, args: readonly Expr[]): WafCall | undefined {
  const set = stringLiteral(args[0]);
  if (set === undefined || (name !== 'evaluatePreconfiguredWaf' && name !== 'evaluatePreconfiguredExpr')) return undefined;
  const second = args[1];
  if (name === 'evaluatePreconfiguredExpr') {
    if (second === undefined) return { function: name, set, sensitivity: MAX_WAF_SENSITIVITY, optOut: [] };
    const ids = stringList(second);
    return ids === undefined
      ? { function: name, set, sensitivity: MAX_WAF_SENSITIVITY, optOut: [], unreadable: 'its excluded ids are not a list of string literals' }
      : { function: name, set, sensitivity: MAX_WAF_SENSITIVITY, optOut: ids };
  }
  if (second === undefined) return { function: name, set, sensitivity: MAX_WAF_SENSITIVITY, optOut: [] };
  if (second.exprKind.case !== 'structExpr')
    return { function: name, set, sensitivity: MAX_WAF_SENSITIVITY, optOut: [], unreadable: 'its options are not a map literal' };
  let sensitivity = MAX_WAF_SENSITIVITY;
  let optIn: string[] | undefined;
  let optOut: string[] = [];
  for (const entry of second.exprKind.value.entries) {
    const key = entry.keyKind.case === 'mapKey' ? stringLiteral(entry.keyKind.value) : undefined;
    const value = entry.value?.exprKind;
    if (key === 'sensitivity' && value?.case === 'constExpr' && value.value.constantKind.case === 'int64Value')
      sensitivity = Number(value.value.constantKind.value);
    else if (key === 'opt_in_rule_ids' && entry.value !== undefined) optIn = stringList(entry.value);
    else if (key === 'opt_out_rule_ids' && entry.value !== undefined) optOut = stringList(entry.value) ?? [];
  }
  return { function: name, set, sensitivity, ...(optIn === undefined ? {} : { optIn }), optOut };
}

/** Enabled are a call's signatures: CRS rule id → Cloud Armor signature id. */
export type Enabled = ReadonlyMap<string, string>;

const enabledCache = new WeakMap<WafCall, Enabled>();

/** enabledSignatures are the signatures `call` enables in `set`. */
export function enabledSignatures(call: WafCall, set: ResolvedSet): Enabled {
  const cached = enabledCache.get(call);
  if (cached !== undefined) return cached;
  const enabled = new Map<string, string>();
  if (call.optIn !== undefined) {
    for (const signature of call.optIn) {
      const id = set.crsIdOf(signature);
      if (id !== undefined) enabled.set(id, signature);
    }
  } else {
    const out = new Set(call.optOut);
    for (const [id, level] of set.table) {
      const signature = set.signatureId(id);
      if (level >= 1 && level <= call.sensitivity && !out.has(signature)) enabled.set(id, signature);
    }
  }
  enabledCache.set(call, enabled);
  return enabled;
}

/** paranoiaOf is the CRS paranoia level the call needs: the highest sensitivity among its enabled signatures (0: none). */
export function paranoiaOf(call: WafCall): number {
  const set = resolveSet(call.set);
  if (set === undefined || isUnsupported(set)) return 0;
  let level = 0;
  for (const id of enabledSignatures(call, set).keys()) level = Math.max(level, set.table.get(id) ?? 0);
  return level;
}

function stringLiteral(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  return kind?.case === 'constExpr' && kind.value.constantKind.case === 'stringValue' ? kind.value.constantKind.value : undefined;
}

function stringList(expr: Expr): string[] | undefined {
  if (expr.exprKind.case !== 'listExpr') return undefined;
  const values = expr.exprKind.value.elements.map(stringLiteral);
  return values.every((value): value is string => value !== undefined) ? values : undefined;
}
