import { evaluateTraced, type CompiledExpression, type ExpressionResult } from './compile-expression.ts';
import type { CompiledRule } from './compile-rule.ts';
import type { RuleExplanation } from './decision.ts';
import { inRange } from './ip-match.ts';
import type { RequestView } from './request-view.ts';
import type { EvaluationTrace, WafUnknown } from './unevaluated-calls.ts';
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
  /** wafSets are the preconfigured sets whose unevaluated calls the evaluation reached. */
  readonly wafSets?: readonly string[];
}

/** matchRule evaluates `rule`'s match against `view`; `explain` adds the per-term breakdown. */
export function matchRule(rule: CompiledRule, view: RequestView, wafUnknown: WafUnknown, explain: boolean): RuleMatch {
  const { priority, preview } = rule;
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case 'ips': {
      const matched = matcher.ranges.some((range) => inRange(view.originAddress, range));
      const detail = `origin.ip ${view.originIp} is ${matched ? 'in' : 'in none of'} srcIpRanges [${matcher.texts.join(', ')}]`;
      return { matched, explanation: { priority, preview, matched, detail } };
    }
    case 'none':
      return { matched: false, explanation: { priority, preview, matched: false, detail: matcher.why } };
    case 'expr':
      return matchExpression(rule, matcher.expression, view, wafUnknown, explain);
  }
}

function matchExpression(rule: CompiledRule, expression: CompiledExpression, view: RequestView, wafUnknown: WafUnknown, explain: boolean): RuleMatch {
  const { priority, preview } = rule;
  const bindings = view.bindings();
  const trace: EvaluationTrace = { wafUnknown, unevaluated: [] };
  const result = evaluateTraced(expression.evaluate, bindings, trace);
  const matched = 'value' in result && result.value;
  const unevaluated = trace.unevaluated;
  const parts: string[] = [];
  if ('error' in result) parts.push(`evaluation error, so the rule does not match: ${result.error}`);
  else parts.push(`expression is ${result.value}`);
  if (explain) {
    const terms = expression.terms();
    if (terms.length > 1) {
      const shown = terms.map((term) => `${term.text} → ${describe(evaluateTraced(term.evaluate, bindings, { wafUnknown, unevaluated: [] }))}`);
      parts.push(shown.join(` ${expression.operator ?? ''} `).trim());
    }
  }
  if (unevaluated.length > 0) {
    const calls = unevaluated.map((call) => `${call.function}('${call.argument}')`);
    parts.push(`not evaluated locally: ${[...new Set(calls)].join(', ')} decided as wafUnknown=${wafUnknown}`);
  }
  const explanation: RuleExplanation = {
    priority,
    preview,
    matched,
    ...(unevaluated.length > 0 ? { notEvaluatedLocally: true } : {}),
    ...('error' in result ? { error: result.error } : {}),
    detail: parts.join('; '),
  };
  const wafSets = unevaluated.filter((call) => WAF_FUNCTIONS.includes(call.function)).map((call) => call.argument);
  return { matched, explanation, ...(wafSets.length > 0 ? { wafSets: [...new Set(wafSets)] } : {}) };
}

function describe(result: ExpressionResult): string {
  return 'error' in result ? `error (${result.error})` : String(result.value);
}
