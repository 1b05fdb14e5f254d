import { isCelError, plan, unparse } from '@bufbuild/cel';
import { BoundedMap } from '../../../../lib/bounded-map.ts';
import { parseExpression, type Expr } from '../check-expression.ts';
import { armorEnvironment, HAS_KEY } from './cel-environment.ts';
import { fastExpression, type FastExpression } from './fast-expression.ts';
import { NOTED_FUNCTIONS, UNEVALUATED_FUNCTIONS, WAF_CALL, withTrace, WAF_FUNCTIONS, type EvaluationTrace } from './unevaluated-calls.ts';
import { readWafCall, type WafCall } from '../waf/waf-call.ts';

/**
 * A rule's `match.expr.expression` compiled once for the `@bufbuild/cel` runtime: parsed, with
 * Cloud Armor's `has(m['k'])` rewritten to a key test, and planned against the rules-language
 * environment. Compiled expressions are cached by their text (bounded), so a policy recompiled
 * after a change, or a hundred rules sharing an expression, compile it once.
 */

/** ExpressionResult is the value of one evaluation: a boolean, or the run-time error that stopped it. */
export type ExpressionResult = { readonly value: boolean } | { readonly error: string };

/** Term is one operand of the expression's top-level `&&`/`||` chain, for explanations. */
export interface Term {
  readonly text: string;
  readonly evaluate: (bindings: Record<string, unknown>) => ExpressionResult;
}

/** CompiledExpression is an expression ready to evaluate. */
export interface CompiledExpression {
  readonly text: string;
  /** operator joins the top-level terms (`&&`, `||`), or is undefined for a single term. */
  readonly operator: '&&' | '||' | undefined;
  readonly evaluate: (bindings: Record<string, unknown>) => ExpressionResult;
  /** terms are planned on first use (only explanations need them). */
  terms(): readonly Term[];
  /** wafSets are the preconfigured sets the expression names (`sqli-v33-stable`), for preconfiguredExprIds. */
  readonly wafSets: readonly string[];
  /** wafCalls are its WAF calls with a literal set, compiled to `@armor_waf` and answered from the engine's findings. */
  readonly wafCalls: readonly WafCall[];
  /** traced: the expression calls a function that cannot be evaluated locally or may add a note, so evaluation needs a trace. */
  readonly traced: boolean;
  /** fast is the expression as a plain closure over the request view when its shape allows (fast-expression.ts); undefined otherwise. */
  readonly fast: FastExpression | undefined;
}

/** EXPRESSION_CACHE_SIZE bounds the compiled expressions kept. */
export const EXPRESSION_CACHE_SIZE = 4096;

const cache = new BoundedMap<string, CompiledExpression>(EXPRESSION_CACHE_SIZE);
let compilations = 0;

/** compiledExpressionCount is how many expressions were compiled (not taken from the cache) so far: for tests. */
export function compiledExpressionCount(): number {
  return compilations;
}

/** compileExpression compiles `text` or returns the cached compilation; a parse failure throws ExpressionError. */
export function compileExpression(text: string): CompiledExpression {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const parsed = parseExpression(text);
  const { operator, operands } = topLevelTerms(parsed.expr);
  // Term texts are taken before the rewrite, so they read as the user wrote them.
  const termTexts = operands.map((operand) => unparse(operand));
  const wafSets = wafSetsOf(parsed.expr);
  const wafCalls: WafCall[] = [];
  const root = rewriteWaf(rewriteHas(parsed.expr), wafCalls);
  compilations++;
  const traced = callsAny(root, [...UNEVALUATED_FUNCTIONS, ...NOTED_FUNCTIONS]);
  let terms: readonly Term[] | undefined;
  const compiled: CompiledExpression = {
    text,
    operator,
    evaluate: planned(root),
    terms: () => {
      terms ??= operands.map((operand, i) => ({ text: termTexts[i] ?? '', evaluate: planned(operand) }));
      return terms;
    },
    wafSets,
    wafCalls,
    traced,
    fast: traced ? undefined : fastExpression(root),
  };
  cache.set(text, compiled);
  return compiled;
}

/** evaluateTraced evaluates with `trace` collecting the calls that could not be evaluated locally. */
export function evaluateTraced(
  evaluate: (bindings: Record<string, unknown>) => ExpressionResult,
  bindings: Record<string, unknown>,
  trace: EvaluationTrace,
): ExpressionResult {
  return withTrace(trace, () => evaluate(bindings));
}

function planned(expr: Expr): (bindings: Record<string, unknown>) => ExpressionResult {
  const run = plan(armorEnvironment(), expr) as (bindings: Record<string, unknown>) => unknown;
  return (bindings) => {
    let value: unknown;
    try {
      value = run(bindings);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
    if (isCelError(value)) return { error: errorText(value.message) };
    if (typeof value !== 'boolean') return { error: `expression evaluated to a non-boolean value` };
    return { value };
  };
}

/** errorText words the runtime's errors as CEL's reference implementation does where they differ. */
function errorText(message: string): string {
  const missing = /^field not found: (.*)$/s.exec(message);
  if (missing !== null) return `no such key: ${missing[1]}`;
  const conversion = /^Cannot convert (.*) to a BigInt$/s.exec(message);
  if (conversion !== null) return `cannot convert ${JSON.stringify(conversion[1])} to int`;
  return message;
}

/** rewriteHas turns every `has(x[k])` into `@armor_has_key(x, k)`, in place (the tree is this compilation's own). */
function rewriteHas(expr: Expr): Expr {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'callExpr': {
      const call = kind.value;
      const [arg] = call.args;
      if (
        call.function === 'has' &&
        call.target === undefined &&
        call.args.length === 1 &&
        arg?.exprKind.case === 'callExpr' &&
        arg.exprKind.value.function === '_[_]'
      ) {
        call.function = HAS_KEY;
        call.args = [...arg.exprKind.value.args];
      }
      if (call.target !== undefined) rewriteHas(call.target);
      for (const a of call.args) rewriteHas(a);
      return expr;
    }
    case 'selectExpr':
      if (kind.value.operand !== undefined) rewriteHas(kind.value.operand);
      return expr;
    case 'listExpr':
      for (const element of kind.value.elements) rewriteHas(element);
      return expr;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') rewriteHas(entry.keyKind.value);
        if (entry.value !== undefined) rewriteHas(entry.value);
      }
      return expr;
    default:
      return expr;
  }
}

/**
 * rewriteWaf turns every WAF call with a string-literal set into `@armor_waf('<the call as JSON>')`,
 * in place, collecting the calls: their options are literals (the API checks), read once here.
 */
function rewriteWaf(expr: Expr, calls: WafCall[]): Expr {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'callExpr': {
      const call = kind.value;
      const read = WAF_FUNCTIONS.includes(call.function) && call.target === undefined ? readWafCall(call.function, call.args) : undefined;
      const first = call.args[0];
      if (read !== undefined && first?.exprKind.case === 'constExpr' && first.exprKind.value.constantKind.case === 'stringValue') {
        calls.push(read);
        first.exprKind.value.constantKind.value = JSON.stringify(read);
        call.function = WAF_CALL;
        call.args = [first];
        return expr;
      }
      if (call.target !== undefined) rewriteWaf(call.target, calls);
      for (const a of call.args) rewriteWaf(a, calls);
      return expr;
    }
    case 'selectExpr':
      if (kind.value.operand !== undefined) rewriteWaf(kind.value.operand, calls);
      return expr;
    case 'listExpr':
      for (const element of kind.value.elements) rewriteWaf(element, calls);
      return expr;
    default:
      return expr;
  }
}

/** topLevelTerms flattens the outermost chain of one operator (`a && b && c`). */
function topLevelTerms(root: Expr): { operator: '&&' | '||' | undefined; operands: Expr[] } {
  const kind = root.exprKind;
  if (kind.case !== 'callExpr' || (kind.value.function !== '_&&_' && kind.value.function !== '_||_')) return { operator: undefined, operands: [root] };
  const fn = kind.value.function;
  const operands: Expr[] = [];
  const flatten = (expr: Expr): void => {
    const k = expr.exprKind;
    if (k.case === 'callExpr' && k.value.function === fn) for (const arg of k.value.args) flatten(arg);
    else operands.push(expr);
  };
  flatten(root);
  return { operator: fn === '_&&_' ? '&&' : '||', operands };
}

/** callsAny says whether the tree calls one of `names`. */
function callsAny(expr: Expr, names: readonly string[]): boolean {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'callExpr':
      return (
        names.includes(kind.value.function) ||
        (kind.value.target !== undefined && callsAny(kind.value.target, names)) ||
        kind.value.args.some((arg) => callsAny(arg, names))
      );
    case 'selectExpr':
      return kind.value.operand !== undefined && callsAny(kind.value.operand, names);
    case 'listExpr':
      return kind.value.elements.some((element) => callsAny(element, names));
    case 'structExpr':
      return kind.value.entries.some(
        (entry) => (entry.keyKind.case === 'mapKey' && callsAny(entry.keyKind.value, names)) || (entry.value !== undefined && callsAny(entry.value, names)),
      );
    default:
      return false;
  }
}

/** wafSetsOf lists the string-literal first arguments of the WAF functions. */
function wafSetsOf(root: Expr): string[] {
  const sets: string[] = [];
  const visit = (expr: Expr): void => {
    const kind = expr.exprKind;
    if (kind.case === 'callExpr') {
      const first = kind.value.args[0];
      if (WAF_FUNCTIONS.includes(kind.value.function) && first?.exprKind.case === 'constExpr' && first.exprKind.value.constantKind.case === 'stringValue') {
        sets.push(first.exprKind.value.constantKind.value);
      }
      if (kind.value.target !== undefined) visit(kind.value.target);
      for (const arg of kind.value.args) visit(arg);
    } else if (kind.case === 'selectExpr' && kind.value.operand !== undefined) visit(kind.value.operand);
  };
  visit(root);
  return sets;
}
