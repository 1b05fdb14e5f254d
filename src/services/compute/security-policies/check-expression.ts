import { parse } from '@bufbuild/cel';
import { sourceLimitProblem, treeLimitProblem } from './check-expression-limits.ts';
import { ATTRIBUTES, ENABLED_MACROS, FUNCTIONS, T, formatType, type CelType, type Overload } from './rules-language.ts';

/**
 * The type checker of the rules language. `@bufbuild/cel` parses (its checker is not exported and
 * knows only the standard environment), and this walks the AST against the declarations in
 * `rules-language.ts`, reporting the first error the way CEL checkers word it
 * (`undeclared reference to …`, `found no matching overload for … (candidates: …)`), prefixed
 * with `<input>:LINE:COLUMN:`. Semantic checks on arguments (set names, regexes) come after, in
 * `check-expression-semantics.ts`, over the same AST.
 */

/** Expr is a node of the parsed expression (cel.expr.Expr). */
export type Expr = ReturnType<typeof parse>['expr'];
/** ParsedExpression is an expression with its source positions. */
export type ParsedExpression = ReturnType<typeof parse>;

/** ExpressionError is a problem with an expression; its message is the detail after "Error parsing … expression: ". */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/**
 * parseExpression parses expression text within CEL's parser limits (size and recursion depth,
 * see check-expression-limits.ts), turning parser failures into ExpressionError.
 */
export function parseExpression(text: string): ParsedExpression {
  const tooBig = sourceLimitProblem(text);
  if (tooBig !== undefined) throw new ExpressionError(tooBig);
  let parsed: ParsedExpression;
  try {
    parsed = parse(text);
  } catch (error) {
    // Nesting the bracket scan cannot see still exceeds any recursion limit CEL would allow.
    if (error instanceof RangeError) throw new ExpressionError(`<input>:-1:0: max recursion depth exceeded`);
    throw new ExpressionError(error instanceof Error ? error.message : String(error));
  }
  const tooDeep = treeLimitProblem(parsed.expr);
  if (tooDeep !== undefined) throw new ExpressionError(tooDeep);
  return parsed;
}

/** typeCheck returns the type of a parsed expression or throws ExpressionError. */
export function typeCheck(parsed: ParsedExpression, text: string): CelType {
  const checker = new Checker(parsed, text);
  return checker.check(parsed.expr);
}

class Checker {
  readonly #parsed: ParsedExpression;
  readonly #text: string;

  constructor(parsed: ParsedExpression, text: string) {
    this.#parsed = parsed;
    this.#text = text;
  }

  check(expr: Expr): CelType {
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'constExpr':
        return constantType(kind.value.constantKind.case);
      case 'identExpr':
        return ATTRIBUTES.get(kind.value.name) ?? this.#fail(expr, `undeclared reference to '${kind.value.name}' (in container '')`);
      case 'selectExpr':
        return this.#select(expr, kind.value.operand, kind.value.field, kind.value.testOnly);
      case 'callExpr':
        return this.#call(expr, kind.value.function, kind.value.target, kind.value.args);
      case 'listExpr':
        return T.list(this.#homogeneous(kind.value.elements.map((element) => [element, this.check(element)] as const)));
      case 'structExpr': {
        if (kind.value.messageName !== '') return this.#fail(expr, `undeclared reference to '${kind.value.messageName}' (in container '')`);
        const keys: CelType[] = [];
        const values: CelType[] = [];
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case !== 'mapKey' || entry.value === undefined) return this.#fail(expr, 'unsupported map entry');
          keys.push(this.check(entry.keyKind.value));
          values.push(this.check(entry.value));
        }
        // Values may mix types: evaluatePreconfiguredWaf's options map holds ints and lists.
        return T.map(common(keys), common(values));
      }
      case 'comprehensionExpr': {
        const macro = this.#parsed.sourceInfo?.macroCalls[expr.id.toString()];
        const name = macro?.exprKind.case === 'callExpr' ? macro.exprKind.value.function : 'comprehension';
        return this.#fail(expr, `undeclared reference to '${name}' (in container '')`);
      }
      default:
        return this.#fail(expr, 'unsupported expression');
    }
  }

  /** qualifiedName flattens `a.b.c` into its dotted name, or undefined when the chain is not plain selects. */
  #qualifiedName(expr: Expr): string | undefined {
    const kind = expr.exprKind;
    if (kind.case === 'identExpr') return kind.value.name;
    if (kind.case === 'selectExpr' && !kind.value.testOnly && kind.value.operand !== undefined) {
      const prefix = this.#qualifiedName(kind.value.operand);
      return prefix === undefined ? undefined : `${prefix}.${kind.value.field}`;
    }
    return undefined;
  }

  #select(expr: Expr, operand: Expr | undefined, field: string, testOnly: boolean): CelType {
    if (operand === undefined) return this.#fail(expr, 'missing operand');
    const operandName = this.#qualifiedName(operand);
    // Attributes are declared by qualified name, so `origin.ip` resolves as one identifier.
    if (operandName !== undefined) {
      const whole = ATTRIBUTES.get(`${operandName}.${field}`);
      if (whole !== undefined) return testOnly ? T.bool : whole;
      if (!ATTRIBUTES.has(operandName)) {
        const root = operandName.split('.')[0] ?? operandName;
        const known = [...ATTRIBUTES.keys()].some((attribute) => attribute.startsWith(`${operandName}.`));
        if (known) return this.#fail(expr, `undeclared reference to '${operandName}.${field}' (in container '')`);
        return this.#fail(operand, `undeclared reference to '${root}' (in container '')`);
      }
    }
    const operandType = this.check(operand);
    if (operandType.kind === 'map') return testOnly ? T.bool : operandType.value;
    if (operandType.kind === 'dyn') return testOnly ? T.bool : T.dyn;
    return this.#fail(expr, `type '${formatType(operandType)}' does not support field selection`);
  }

  #call(expr: Expr, name: string, target: Expr | undefined, args: readonly Expr[]): CelType {
    if (name === 'has' && target === undefined && args.length === 1 && ENABLED_MACROS.has('has')) {
      const [arg] = args;
      if (arg !== undefined && arg.exprKind.case === 'callExpr' && arg.exprKind.value.function === '_[_]') {
        this.check(arg);
        return T.bool;
      }
      return this.#fail(expr, 'invalid argument to has() macro');
    }
    const overloads = FUNCTIONS.get(name);
    if (overloads === undefined) return this.#fail(expr, `undeclared reference to '${name}' (in container '')`);
    const targetType = target === undefined ? undefined : this.check(target);
    const argTypes = args.map((arg) => this.check(arg));
    if (name === '_[_]') return this.#index(expr, argTypes);
    const matching = overloads.filter((overload) => matches(overload, targetType, argTypes));
    if (matching.length === 0) {
      const candidates = overloads.map((overload) => formatSignature(overload.target, overload.args)).join(',');
      return this.#fail(expr, `found no matching overload for '${name}' applied to '${formatSignature(targetType, argTypes)}' (candidates: ${candidates})`);
    }
    return common(matching.map((overload) => overload.result));
  }

  #index(expr: Expr, [container, index]: CelType[]): CelType {
    if (container === undefined || index === undefined) return this.#fail(expr, 'malformed index');
    if (container.kind === 'dyn') return T.dyn;
    if (container.kind === 'list' && assignable(T.int, index)) return container.element;
    if (container.kind === 'map' && assignable(container.key, index)) return container.value;
    return this.#fail(expr, `found no matching overload for '_[_]' applied to '(${formatType(container)}, ${formatType(index)})'`);
  }

  #homogeneous(elements: readonly (readonly [Expr, CelType])[]): CelType {
    const first = elements[0];
    if (first === undefined) return T.dyn;
    for (const [element, type] of elements) {
      if (!sameType(first[1], type) && first[1].kind !== 'dyn' && type.kind !== 'dyn') {
        this.#fail(element, `expected type '${formatType(first[1])}' but found '${formatType(type)}'`);
      }
    }
    return first[1];
  }

  #fail(expr: Expr, message: string): never {
    const offset = this.#parsed.sourceInfo?.positions[expr.id.toString()] ?? 0;
    throw new ExpressionError(`${locate(this.#text, offset)}: ${message}`);
  }
}

/** locate turns a character offset into `<input>:LINE:COLUMN`, 1-based like the parser's messages. */
function locate(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  const column = (before.at(-1)?.length ?? 0) + 1;
  return `<input>:${before.length}:${column}`;
}

function constantType(kind: string | undefined): CelType {
  switch (kind) {
    case 'boolValue':
      return T.bool;
    case 'int64Value':
      return T.int;
    case 'uint64Value':
      return T.uint;
    case 'doubleValue':
      return T.double;
    case 'stringValue':
      return T.string;
    case 'bytesValue':
      return T.bytes;
    default:
      return T.null;
  }
}

function matches(overload: Overload, target: CelType | undefined, args: readonly CelType[]): boolean {
  if ((overload.target === undefined) !== (target === undefined)) return false;
  if (overload.target !== undefined && target !== undefined && !assignable(overload.target, target)) return false;
  return overload.args.length === args.length && overload.args.every((param, i) => assignable(param, args[i] ?? T.null));
}

/** assignable says whether a value of type `actual` may be passed where `expected` is declared; dyn goes both ways. */
function assignable(expected: CelType, actual: CelType): boolean {
  if (expected.kind === 'dyn' || actual.kind === 'dyn') return true;
  if (expected.kind === 'list' && actual.kind === 'list') return assignable(expected.element, actual.element);
  if (expected.kind === 'map' && actual.kind === 'map') return assignable(expected.key, actual.key) && assignable(expected.value, actual.value);
  return expected.kind === actual.kind;
}

function sameType(a: CelType, b: CelType): boolean {
  return formatType(a) === formatType(b);
}

/** common is the one type all of `types` share, or dyn when they differ (or there are none). */
function common(types: readonly CelType[]): CelType {
  const first = types[0];
  return first !== undefined && types.every((type) => sameType(type, first)) ? first : T.dyn;
}

function formatSignature(target: CelType | undefined, args: readonly CelType[]): string {
  const list = `(${args.map(formatType).join(', ')})`;
  return target === undefined ? list : `${formatType(target)}.${list}`;
}
