import { checkRegex } from './check-regex.ts';
import { ExpressionError, type Expr } from './check-expression.ts';
import {
  MAX_SUBEXPRESSIONS,
  MAX_WAF_SENSITIVITY,
  PRECONFIGURED_EXPRESSION_SETS,
  SOURCE_IP_LISTS,
  SOURCE_IP_LIST_PREFIX,
  THREAT_INTELLIGENCE_LISTS,
  WAF_OPTION_KEYS,
  WAF_RULE_SETS,
  type PolicyScope,
  type PolicyType,
} from './constants.ts';

/** ExpressionContext is what an expression's acceptability depends on besides its text. */
export interface ExpressionContext {
  readonly scope: PolicyScope;
  readonly policyType: PolicyType;
}

/**
 * checkSemantics runs the checks a type checker cannot: the subexpression limit, regex literals,
 * the names given to the preconfigured-expression, WAF and threat-intelligence functions, and
 * which of those a policy of this scope and type may use. Messages follow the real service's
 * (`X isn't a valid preconfigured expression set.`), without a source position, as it sends them.
 */
export function checkSemantics(root: Expr, context: ExpressionContext): void {
  const terms = countTerms(root);
  if (terms > MAX_SUBEXPRESSIONS) {
    throw new ExpressionError(`The expression has too many subexpressions (maximum ${MAX_SUBEXPRESSIONS})`);
  }
  visit(root, (call) => checkCall(call, context));
}

interface Call {
  readonly function: string;
  readonly target?: Expr | undefined;
  readonly args: readonly Expr[];
}

/** countTerms counts the operands joined by && and || (a negation is part of its term). */
function countTerms(expr: Expr): number {
  const kind = expr.exprKind;
  if (kind.case === 'callExpr' && (kind.value.function === '_&&_' || kind.value.function === '_||_')) {
    return kind.value.args.reduce((sum, arg) => sum + countTerms(arg), 0);
  }
  if (kind.case === 'callExpr' && kind.value.function === '!_' && kind.value.args[0] !== undefined) return countTerms(kind.value.args[0]);
  return 1;
}

function visit(expr: Expr, onCall: (call: Call) => void): void {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'callExpr':
      onCall(kind.value);
      if (kind.value.target !== undefined) visit(kind.value.target, onCall);
      for (const arg of kind.value.args) visit(arg, onCall);
      return;
    case 'selectExpr':
      if (kind.value.operand !== undefined) visit(kind.value.operand, onCall);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) visit(element, onCall);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, onCall);
        if (entry.value !== undefined) visit(entry.value, onCall);
      }
      return;
    default:
      return;
  }
}

function checkCall(call: Call, context: ExpressionContext): void {
  switch (call.function) {
    case 'matches': {
      const pattern = stringLiteral(call.target === undefined ? call.args[1] : call.args[0]);
      const problem = pattern === undefined ? undefined : checkRegex(pattern);
      if (problem !== undefined) throw new ExpressionError(problem);
      return;
    }
    case 'evaluatePreconfiguredExpr':
      checkPreconfiguredExpr(requireLiteral(call), context);
      return;
    case 'evaluatePreconfiguredWaf':
      checkPreconfiguredWaf(requireLiteral(call), call.args[1]);
      return;
    case 'evaluateThreatIntelligence':
      checkThreatIntelligence(requireLiteral(call), context);
      return;
    case 'evaluateAddressGroup':
      requireLiteral(call);
      return;
    default:
      return;
  }
}

function checkPreconfiguredExpr(name: string, context: ExpressionContext): void {
  const invalid = new ExpressionError(`${name} isn't a valid preconfigured expression set.`);
  if (name.startsWith(SOURCE_IP_LIST_PREFIX)) {
    // Named source IP lists exist only for global policies; elsewhere the service does not know them.
    if (!SOURCE_IP_LISTS.includes(name) || context.scope !== 'global') throw invalid;
    return;
  }
  if (!PRECONFIGURED_EXPRESSION_SETS.includes(name) && !WAF_RULE_SETS.includes(name)) throw invalid;
}

function checkPreconfiguredWaf(name: string, options: Expr | undefined): void {
  if (!WAF_RULE_SETS.includes(name)) throw new ExpressionError(`${name} isn't a valid preconfigured WAF rule set.`);
  if (options === undefined || options.exprKind.case !== 'structExpr') return;
  for (const entry of options.exprKind.value.entries) {
    const key = entry.keyKind.case === 'mapKey' ? stringLiteral(entry.keyKind.value) : undefined;
    if (key === undefined || !WAF_OPTION_KEYS.includes(key)) {
      throw new ExpressionError(
        `Invalid option ${key ?? '(non-literal key)'} for evaluatePreconfiguredWaf: options must be one of ${WAF_OPTION_KEYS.join(', ')}.`,
      );
    }
    const value = entry.value?.exprKind;
    if (key === 'sensitivity') {
      const level = value?.case === 'constExpr' && value.value.constantKind.case === 'int64Value' ? Number(value.value.constantKind.value) : -1;
      if (level < 0 || level > MAX_WAF_SENSITIVITY) {
        throw new ExpressionError(`The sensitivity option of evaluatePreconfiguredWaf must be an integer between 0 and ${MAX_WAF_SENSITIVITY}.`);
      }
    } else if (value?.case !== 'listExpr' || value.value.elements.some((element) => stringLiteral(element) === undefined)) {
      throw new ExpressionError(`The ${key} option of evaluatePreconfiguredWaf must be a list of rule ID strings.`);
    }
  }
}

function checkThreatIntelligence(name: string, context: ExpressionContext): void {
  if (context.scope === 'regional') throw new ExpressionError('Threat intelligence is not supported in regional security policies.');
  if (context.policyType === 'CLOUD_ARMOR_EDGE')
    throw new ExpressionError('Threat intelligence is not supported in security policies of type CLOUD_ARMOR_EDGE.');
  if (!THREAT_INTELLIGENCE_LISTS.includes(name)) throw new ExpressionError(`${name} isn't a valid threat intelligence list.`);
}

/** requireLiteral returns the first argument, which must be a string literal so the server can resolve it. */
function requireLiteral(call: Call): string {
  const name = stringLiteral(call.args[0]);
  if (name === undefined) throw new ExpressionError(`The first argument of ${call.function} must be a string literal.`);
  return name;
}

function stringLiteral(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  return kind?.case === 'constExpr' && kind.value.constantKind.case === 'stringValue' ? kind.value.constantKind.value : undefined;
}
