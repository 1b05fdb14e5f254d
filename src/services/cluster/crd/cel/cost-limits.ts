/**
 * The apiserver's CEL cost limits and the texts of their errors (apiextensions `validation.go`,
 * apiserver `apis/cel/config.go`).
 */

/** STATIC_ESTIMATED_COST_LIMIT is the most one rule may be estimated to cost, times its cardinality. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** STATIC_ESTIMATED_CRD_COST_LIMIT is the most all rules of one schema may be estimated to cost together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** PER_CALL_LIMIT is the run-time cost one rule evaluation may use. */
export const PER_CALL_LIMIT = 1_000_000;
/** RUNTIME_CEL_COST_BUDGET is the run-time cost all rules of one object may use. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES bounds a messageExpression's result. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** goFloat is Go's `%f` (six decimals). */
function goFloat(n: number): string {
  return n.toFixed(6);
}

/** costErrorMessage is getCostErrorMessage: `<name> exceeds budget by factor of <f> (try …)`. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let text: string;
  if (factor > 100) text = 'more than 100x';
  else if (factor < 1.5) text = `${goFloat(factor)}x`;
  else text = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
