import { evaluateTraced, type CompiledExpression, type ExpressionResult } from './compile-expression.ts';
import type { CompiledRule } from './compile-rule.ts';
import type { RuleExplanation } from './decision.ts';
import { inRange } from './ip-match.ts';
import type { RequestView } from './request-view.ts';
import type { EvaluationTrace, WafResolver, WafUnknown } from './unevaluated-calls.ts';
import { WAF_FUNCTIONS } from './unevaluated-calls.ts';

/**
 * Whether one rule's match condition holds for a request, with the explanation of why. A
 * run-time error in an expression (a missing header key, a bad address for inIpRange, a
 * non-numeric int()) makes the rule not match, and evaluation goes on to the next rule; CEL's
 * `&&` and `||` absorb an error when the other side decides (`false && error` is false).
 */

/** RuleMatch is the verdict on a rule's match condition. */
export interface RuleMatch {
  readonly matched: boolean;
  readonly explanation: RuleExplanation;
  /**
   * wafSets are the log's preconfiguredExprIds: the WAF signatures that matched (Cloud Armor's
   * spelling) and, with wafUnknown=match, the names of sets whose calls could not be evaluated.
   */
  readonly wafSets?: readonly string[];
}

/**
 * matchRule evaluates `rule`'s match against `view`; `explain` adds the per-term breakdown and the
 * address to an IP-range verdict; `fast` lets plain-JavaScript closures decide the expressions
 * they cover (fast-expression.ts; false runs the CEL runtime for every expression, for tests).
 */
export function matchRule(rule: CompiledRule, view: RequestView, wafUnknown: WafUnknown, explain: boolean, fast = true, waf?: WafResolver): RuleMatch {
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case 'ips': {
      const address = view.originAddress;
      let matched = false;
      for (const range of matcher.ranges) {
        if (inRange(address, range)) {
          matched = true;
          break;
        }
      }
      // A proxy (explain false) shares one answer per rule instead of writing a sentence per request.
      if (!explain) return matched ? rule.plain.matched : rule.plain.unmatched;
      const detail = `origin.ip ${view.originIp} is ${matched ? 'in' : 'in none of'} srcIpRanges [${matcher.texts.join(', ')}]`;
      return { matched, explanation: { priority: rule.priority, preview: rule.preview, matched, detail } };
    }
    case 'none':
      return rule.plain.unmatched;
    case 'expr':
      return matchExpression(rule, matcher.expression, view, wafUnknown, explain, fast, waf);
  }
}

function matchExpression(
  rule: CompiledRule,
  expression: CompiledExpression,
  view: RequestView,
  wafUnknown: WafUnknown,
  explain: boolean,
  fast: boolean,
  waf: WafResolver | undefined,
): RuleMatch {
  if (fast && expression.fast !== undefined && (!explain || expression.operator === undefined)) {
    // undefined is a run-time error: the CEL runtime below evaluates again and words it.
    const value = expression.fast(view);
    if (value !== undefined) return value ? rule.plain.matched : rule.plain.unmatched;
  }
  const bindings = view.bindings();
  if (!expression.traced) {
    const result = expression.evaluate(bindings);
    // The common case, a plain true or false with nothing to add, shares one answer per rule.
    if ('value' in result && (!explain || expression.operator === undefined)) return result.value ? rule.plain.matched : rule.plain.unmatched;
    return explained(rule, expression, bindings, result, { wafUnknown, unevaluated: [] }, explain);
  }
  const trace: EvaluationTrace = { wafUnknown, unevaluated: [], notes: [], signatures: [], ...(waf === undefined ? {} : { waf }) };
  const result = evaluateTraced(expression.evaluate, bindings, trace);
  return explained(rule, expression, bindings, result, trace, explain);
}

function explained(
  rule: CompiledRule,
  expression: CompiledExpression,
  bindings: Record<string, unknown>,
  result: ExpressionResult,
  trace: EvaluationTrace,
  explain: boolean,
): RuleMatch {
  const { unevaluated, wafUnknown } = trace;
  const matched = 'value' in result && result.value;
  const parts: string[] = [];
  if ('error' in result) parts.push(`evaluation error, so the rule does not match: ${result.error}`);
  else parts.push(`expression is ${result.value}`);
  if (explain && expression.operator !== undefined) {
    const shown = expression
      .terms()
      .map(
        (term) =>
          `${term.text} → ${describe(evaluateTraced(term.evaluate, bindings, { wafUnknown, unevaluated: [], ...(trace.waf === undefined ? {} : { waf: trace.waf }) }))}`,
      );
    parts.push(shown.join(` ${expression.operator} `));
  }
  for (const note of new Set(trace.notes ?? [])) parts.push(note);
  if (unevaluated.length > 0) {
    const calls = unevaluated.map((call) => `${call.function}('${call.argument}')`);
    parts.push(`not evaluated locally: ${[...new Set(calls)].join(', ')} decided as wafUnknown=${wafUnknown}`);
  }
  const explanation: RuleExplanation = {
    priority: rule.priority,
    preview: rule.preview,
    matched,
    ...(unevaluated.length > 0 ? { notEvaluatedLocally: true } : {}),
    ...('error' in result ? { error: result.error } : {}),
    detail: parts.join('; '),
  };
  // The sets are named only when their calls answered true (wafUnknown=match): the log lists what matched.
  const unevaluatedSets = wafUnknown === 'match' ? unevaluated.filter((call) => WAF_FUNCTIONS.includes(call.function)).map((call) => call.argument) : [];
  const wafSets = matched ? [...(trace.signatures ?? []), ...unevaluatedSets] : [];
  return { matched, explanation, ...(wafSets.length > 0 ? { wafSets: [...new Set(wafSets)] } : {}) };
}

function describe(result: ExpressionResult): string {
  return 'error' in result ? `error (${result.error})` : String(result.value);
}
