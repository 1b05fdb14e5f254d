/**
 * evaluateExpression: compiles and runs one expression against a `self` with the rule environment,
 * outside any schema walk. Used by the tests of the libraries and handy for debugging a rule.
 */
import { analyze } from './analyze.ts';
import { parseRule } from './ast.ts';
import { type CelT, DYN } from './cel-types.ts';
import { PER_CALL_LIMIT } from './cost-limits.ts';
import { Interpreter, Meter } from './interpreter.ts';
import { fromCel, toCel, type Value } from './runtime-values.ts';

/** EvaluationResult is a value, or the compile or run-time error text, with the cost used. */
export type EvaluationResult = { value: unknown; raw: Value; cost: number } | { error: string; cost: number };

/** evaluateExpression type-checks and evaluates `text` with `self` bound to `self` (typed `selfType`, dyn by default). */
export function evaluateExpression(text: string, self: unknown = null, selfType: CelT = DYN, limit = PER_CALL_LIMIT): EvaluationResult {
  const parsed = parseRule(text);
  if ('error' in parsed) return { error: parsed.error, cost: 0 };
  const expr = parsed.parsed.expr;
  if (expr === undefined) return { error: 'empty expression', cost: 0 };
  const analysis = analyze(expr, parsed.source, new Map([['self', selfType]]));
  if (analysis.errors.length > 0) return { error: analysis.errors.join('\n'), cost: 0 };
  const meter = new Meter(limit);
  try {
    const raw = new Interpreter(meter, new Map([['self', toCel(self, undefined)]])).eval(expr, new Map());
    return { value: fromCel(raw), raw, cost: meter.cost };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), cost: meter.cost };
  }
}
