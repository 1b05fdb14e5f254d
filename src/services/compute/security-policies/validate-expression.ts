import { invalidFieldValue, type ComputeError } from '../shared/errors.ts';
import { checkSemantics, type ExpressionContext } from './check-expression-semantics.ts';
import { ExpressionError, parseExpression, typeCheck } from './check-expression.ts';
import { EXPR_JSON_SHOWN, PRODUCT } from './constants.ts';
import type { ExpressionCache } from './expression-cache.ts';
import type { SecurityPolicyRule } from './model.ts';
import { formatType } from './rules-language.ts';

/** RuleExpr is a rule's `match.expr`. */
export type RuleExpr = NonNullable<NonNullable<SecurityPolicyRule['match']>['expr']>;

/** EXPR_FIELD_ORDER is the Expr message's field-number order. */
const EXPR_FIELD_ORDER = ['expression', 'title', 'description', 'location'] as const;

/**
 * validateExpression parses, type-checks and semantically checks a rule's match expression,
 * throwing the real service's error on the first problem:
 * `Invalid value for field 'F': '<expr as JSON>'. Error parsing Cloud Armor rule matcher expression: <detail>`.
 */
export function validateExpression(expr: RuleExpr, text: string, field: string, context: ExpressionContext, cache?: ExpressionCache): void {
  const problem = cache === undefined ? expressionProblem(text, context) : cache.verdict(text, context, () => expressionProblem(text, context));
  if (problem !== undefined) throw expressionError(expr, field, problem);
}

/** expressionProblem is the detail of the first problem with an expression, or undefined when it is acceptable. */
function expressionProblem(text: string, context: ExpressionContext): string | undefined {
  try {
    const parsed = parseExpression(text);
    const type = typeCheck(parsed, text);
    if (type.kind !== 'bool' && type.kind !== 'dyn') {
      throw new ExpressionError(`expression must evaluate to a boolean value, found '${formatType(type)}'`);
    }
    checkSemantics(parsed.expr, context);
    return undefined;
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}

/** expressionError builds the 400 for a bad expression, quoting the expr as the real service does. */
export function expressionError(expr: RuleExpr, field: string, detail: string): ComputeError {
  return invalidFieldValue(field, quoteExpr(expr), `Error parsing ${PRODUCT} rule matcher expression: ${detail}`);
}

/**
 * quoteExpr renders the expr message as the real service quotes it: its proto JSON with the line
 * breaks folded to single spaces (`{ "expression": "…"}`, as the documented error shows), quotes as
 * \u0027, cut after 100 characters with `...`.
 */
function quoteExpr(expr: RuleExpr): string {
  // Proto JSON prints members in field-number order, whatever order the request used.
  const members = EXPR_FIELD_ORDER.flatMap((name) =>
    expr[name] === undefined ? [] : [`${JSON.stringify(name)}: ${JSON.stringify(expr[name]).replaceAll("'", '\\u0027')}`],
  );
  const json = `{ ${members.join(', ')}}`;
  return json.length > EXPR_JSON_SHOWN ? `${json.slice(0, EXPR_JSON_SHOWN)}...` : json;
}
