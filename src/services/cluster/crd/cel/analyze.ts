/**
 * Static analysis of a rule: type checking against the declared type of `self` (undeclared
 * references, undefined fields, overloads that do not apply — cel-go's messages) and the worst-case
 * cost estimate cel-go's checker computes (identifiers and selections cost 1, calls their
 * overload's estimate, comprehensions the range size times the loop body, sizes from the schema's
 * maxItems/maxLength/maxProperties or the request-size bound).
 */
import type { Comprehension, Expr, Source } from './ast.ts';
import { BOOL, BYTES, type CelT, DOUBLE, DYN, INT, listOf, mapOf, NULL, STRING, TYPE, typeName, UINT } from './cel-types.ts';
import { addCost, fixed, MAX_UINT64, mulCost, type Overload, sat, type Size, TYPE_NAMES, UNKNOWN_SIZE } from './overloads.ts';
import { ALL_OVERLOADS } from './library.ts';
import { optionalOf } from './library-optional.ts';
import { OPT_INDEX, OPT_SELECT } from './optional-syntax.ts';

/** Analysis is what the checker learnt about a rule. */
export interface Analysis {
  readonly type: CelT;
  readonly cost: Size;
  readonly errors: string[];
  /** usesOldSelf is true when the rule reads `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
}

interface Node {
  type: CelT;
  cost: Size;
  size?: Size | undefined;
}

const BY_NAME = new Map<string, Overload[]>();
for (const overload of ALL_OVERLOADS) BY_NAME.set(overload.name, [...(BY_NAME.get(overload.name) ?? []), overload]);

/** overloadsNamed lists the overloads of a function name. */
export function overloadsNamed(name: string): readonly Overload[] {
  return BY_NAME.get(name) ?? [];
}

/** qualifiedName is `a.b` for a target written as a chain of identifiers (`sets`, `format`), else undefined. */
export function qualifiedName(e: Expr | undefined): string | undefined {
  if (e === undefined) return undefined;
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly) {
    const operand = qualifiedName(e.exprKind.value.operand);
    return operand === undefined ? undefined : `${operand}.${e.exprKind.value.field}`;
  }
  return undefined;
}

function sizeOfType(t: CelT): Size | undefined {
  if (t.bound !== undefined) return { min: 0, max: t.bound.maxElements };
  switch (t.kind) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
    case 'timestamp':
    case 'duration':
      return fixed(1);
  }
  return undefined;
}

type Bindings = Map<string, CelT>;

function unify(param: CelT, arg: CelT, bindings: Bindings): boolean {
  if (param.kind === 'param') {
    const bound = bindings.get(param.name);
    if (bound === undefined) {
      bindings.set(param.name, arg);
      return true;
    }
    if (bound.kind === 'dyn') {
      bindings.set(param.name, arg);
      return true;
    }
    return arg.kind === 'dyn' || unify(bound, arg, new Map());
  }
  if (arg.kind === 'dyn' || param.kind === 'dyn') return true;
  if (arg.kind === 'param') return true;
  if (param.kind !== arg.kind) return false;
  if (param.kind === 'list' && arg.kind === 'list') return unify(param.elem, arg.elem, bindings);
  if (param.kind === 'map' && arg.kind === 'map') return unify(param.key, arg.key, bindings) && unify(param.value, arg.value, bindings);
  if (param.kind === 'opaque' && arg.kind === 'opaque')
    return param.name === arg.name && (param.param === undefined || arg.param === undefined || unify(param.param, arg.param, bindings));
  return true;
}

function substitute(t: CelT, bindings: Bindings): CelT {
  switch (t.kind) {
    case 'param':
      return bindings.get(t.name) ?? DYN;
    case 'list':
      return listOf(substitute(t.elem, bindings));
    case 'map':
      return mapOf(substitute(t.key, bindings), substitute(t.value, bindings));
    case 'opaque':
      return t.param === undefined ? t : { kind: 'opaque', name: t.name, param: substitute(t.param, bindings) };
    default:
      return t;
  }
}

function join(a: CelT, b: CelT): CelT {
  if (a.kind === 'dyn' || a.kind === 'param') return b;
  if (b.kind === 'dyn' || b.kind === 'param') return a;
  if (a.kind === b.kind && a.kind !== 'list' && a.kind !== 'map' && a.kind !== 'opaque') return a;
  if (a.kind === 'list' && b.kind === 'list') return listOf(join(a.elem, b.elem));
  if (a.kind === 'map' && b.kind === 'map') return mapOf(join(a.key, b.key), join(a.value, b.value));
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  return DYN;
}

function unionCost(a: Size | undefined, b: Size): Size {
  if (a === undefined) return b;
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

/** Checker type-checks and costs one rule. */
class Checker {
  readonly errors: string[] = [];
  usesOldSelf = false;
  private readonly scopes: Map<string, { type: CelT; size?: Size | undefined }>[] = [];
  private depth = 0;

  constructor(
    private readonly source: Source,
    private readonly variables: ReadonlyMap<string, CelT>,
  ) {}

  node(e: Expr): Node {
    if (++this.depth > 250) {
      this.depth--;
      this.errors.push(this.source.error(e.id, 'max recursion depth exceeded'));
      return { type: DYN, cost: UNKNOWN_SIZE };
    }
    try {
      return this.visit(e);
    } finally {
      this.depth--;
    }
  }

  private lookupLocal(name: string): { type: CelT; size?: Size | undefined } | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const found = this.scopes[i]!.get(name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private visit(e: Expr): Node {
    const kind = e.exprKind;
    switch (kind.case) {
      case 'constExpr': {
        const c = kind.value.constantKind;
        switch (c.case) {
          case 'stringValue':
            return { type: STRING, cost: fixed(0), size: fixed([...c.value].length) };
          case 'bytesValue':
            return { type: BYTES, cost: fixed(0), size: fixed(c.value.length) };
          case 'boolValue':
            return { type: BOOL, cost: fixed(0), size: fixed(1) };
          case 'int64Value':
            return { type: INT, cost: fixed(0), size: fixed(1) };
          case 'uint64Value':
            return { type: UINT, cost: fixed(0), size: fixed(1) };
          case 'doubleValue':
            return { type: DOUBLE, cost: fixed(0), size: fixed(1) };
          case 'nullValue':
            return { type: NULL, cost: fixed(0), size: fixed(1) };
          default:
            return { type: DYN, cost: fixed(0) };
        }
      }
      case 'identExpr': {
        const name = kind.value.name;
        const local = this.lookupLocal(name);
        if (local !== undefined) return { type: local.type, cost: fixed(1), size: local.size ?? sizeOfType(local.type) };
        const global = this.variables.get(name);
        if (global !== undefined) {
          if (name === 'oldSelf') this.usesOldSelf = true;
          return { type: global, cost: fixed(1), size: sizeOfType(global) };
        }
        if (TYPE_NAMES.has(name)) return { type: TYPE, cost: fixed(1), size: fixed(1) };
        this.errors.push(this.source.error(e.id, `undeclared reference to '${name}' (in container '')`));
        return { type: DYN, cost: fixed(1) };
      }
      case 'selectExpr': {
        const sel = kind.value;
        if (sel.operand === undefined) return { type: DYN, cost: fixed(0) };
        const operand = this.node(sel.operand);
        const fieldType = this.fieldType(e, operand.type, sel.field);
        if (sel.testOnly) return { type: BOOL, cost: addCost(operand.cost, fixed(1)), size: fixed(1) };
        const selectCost = operand.type.kind === 'map' || operand.type.kind === 'object' || operand.type.kind === 'dyn' ? 1 : 0;
        return { type: fieldType, cost: addCost(operand.cost, fixed(selectCost)), size: sizeOfType(fieldType) };
      }
      case 'callExpr':
        return this.call(e, kind.value);
      case 'listExpr': {
        let elem: CelT = { kind: 'param', name: '_' };
        let cost = fixed(10);
        for (const element of kind.value.elements) {
          const n = this.node(element);
          cost = addCost(cost, n.cost);
          elem = join(elem, n.type);
        }
        return { type: listOf(elem.kind === 'param' ? DYN : elem), cost, size: fixed(kind.value.elements.length) };
      }
      case 'structExpr': {
        if (kind.value.messageName !== '') {
          this.errors.push(this.source.error(e.id, `undeclared reference to '${kind.value.messageName}' (in container '')`));
          return { type: DYN, cost: fixed(40) };
        }
        let key: CelT = { kind: 'param', name: '_' };
        let value: CelT = { kind: 'param', name: '_' };
        let cost = fixed(30);
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') {
            const k = this.node(entry.keyKind.value);
            cost = addCost(cost, k.cost);
            key = join(key, k.type);
          }
          if (entry.value !== undefined) {
            const v = this.node(entry.value);
            cost = addCost(cost, v.cost);
            value = join(value, v.type);
          }
        }
        return { type: mapOf(key.kind === 'param' ? DYN : key, value.kind === 'param' ? DYN : value), cost, size: fixed(kind.value.entries.length) };
      }
      case 'comprehensionExpr':
        return this.comprehension(kind.value);
      default:
        return { type: DYN, cost: fixed(0) };
    }
  }

  private fieldType(e: Expr, operand: CelT, field: string): CelT {
    // Selecting on an optional selects on its value, if any: `a.?b.c` is optional too.
    if (operand.kind === 'opaque' && operand.name === 'optional_type') return optionalOf(this.fieldType(e, operand.param ?? DYN, field));
    switch (operand.kind) {
      case 'object': {
        const t = operand.fields.get(field);
        if (t === undefined) {
          this.errors.push(this.source.error(e.id, `undefined field '${field}'`));
          return DYN;
        }
        return t;
      }
      case 'map':
        if (operand.key.kind !== 'string' && operand.key.kind !== 'dyn') break;
        return operand.value;
      case 'dyn':
      case 'param':
        return DYN;
      default:
        break;
    }
    this.errors.push(this.source.error(e.id, `type '${typeName(operand)}' does not support field selection`));
    return DYN;
  }

  private comprehension(c: Comprehension): Node {
    if (c.iterRange === undefined || c.accuInit === undefined || c.loopCondition === undefined || c.loopStep === undefined || c.result === undefined) {
      return { type: DYN, cost: fixed(0) };
    }
    const range = this.node(c.iterRange);
    const init = this.node(c.accuInit);
    let iterType: CelT = DYN;
    let iterSize: Size | undefined;
    if (range.type.kind === 'list') {
      iterType = range.type.elem;
      iterSize = sizeOfType(iterType);
    } else if (range.type.kind === 'map') {
      iterType = range.type.key;
      iterSize = sizeOfType(iterType);
    } else if (range.type.kind !== 'dyn') {
      this.errors.push(
        this.source.error(c.iterRange.id, `expression of type '${typeName(range.type)}' cannot be range of a comprehension (must be list, map, or dynamic)`),
      );
    }
    const scope = new Map<string, { type: CelT; size?: Size | undefined }>();
    scope.set(c.accuVar, { type: init.type, size: init.size });
    this.scopes.push(scope);
    const iterScope = new Map<string, { type: CelT; size?: Size | undefined }>();
    iterScope.set(c.iterVar, iterSize === undefined ? { type: iterType } : { type: iterType, size: iterSize });
    this.scopes.push(iterScope);
    const cond = this.node(c.loopCondition);
    const errorsBefore = this.errors.length;
    let step = this.node(c.loopStep);
    if (
      step.type.kind !== init.type.kind ||
      (init.type.kind === 'list' && step.type.kind === 'list' && init.type.elem.kind === 'dyn' && step.type.elem.kind !== 'dyn')
    ) {
      // the accumulator's type is what the step builds (`[]` then `@result + [f(x)]`)
      scope.set(c.accuVar, { type: join(init.type, step.type), size: init.size });
      this.errors.length = errorsBefore;
      step = this.node(c.loopStep);
    }
    this.scopes.pop();
    const result = this.node(c.result);
    this.scopes.pop();
    const rangeCount = range.size ?? UNKNOWN_SIZE;
    let cost = addCost(addCost(range.cost, init.cost), result.cost);
    cost = addCost(cost, mulCost(rangeCount, addCost(step.cost, cond.cost)));
    const size = c.accuInit.exprKind.case === 'listExpr' || c.accuInit.exprKind.case === 'structExpr' ? rangeCount : init.size;
    return size === undefined ? { type: result.type, cost } : { type: result.type, cost, size };
  }

  private call(e: Expr, call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value']): Node {
    const name = call.function;
    // Qualified library functions: `sets.contains(a, b)`, `format.dns1123Label()`, `optional.of(x)`.
    const qualifier = call.target === undefined ? undefined : qualifiedName(call.target);
    if (qualifier !== undefined && this.lookupLocal(qualifier.split('.')[0]!) === undefined && !this.variables.has(qualifier.split('.')[0]!)) {
      const qualified = `${qualifier}.${name}`;
      if (BY_NAME.has(qualified))
        return this.resolve(
          e,
          qualified,
          false,
          call.args.map((a) => this.node(a)),
          fixed(0),
        );
    }
    const args = call.args.map((a) => this.node(a));
    switch (name) {
      case '_&&_':
      case '_||_': {
        for (const [i, a] of args.entries()) this.expectBool(call.args[i]!, a.type, name);
        const [l, r] = [args[0]!, args[1]!];
        return { type: BOOL, cost: { min: l.cost.min, max: sat(l.cost.max + r.cost.max) }, size: fixed(1) };
      }
      case '@not_strictly_false':
        return { type: BOOL, cost: addCost(args[0]!.cost, fixed(1)), size: fixed(1) };
      case '_?_:_': {
        const [c, t, f] = [args[0]!, args[1]!, args[2]!];
        this.expectBool(call.args[0]!, c.type, name);
        const type = join(t.type, f.type);
        if (
          type.kind === 'dyn' &&
          t.type.kind !== 'dyn' &&
          f.type.kind !== 'dyn' &&
          t.type.kind !== f.type.kind &&
          t.type.kind !== 'null' &&
          f.type.kind !== 'null'
        ) {
          this.errors.push(this.source.error(e.id, `found no matching overload for '_?_:_' applied to '(bool, ${typeName(t.type)}, ${typeName(f.type)})'`));
        }
        const size =
          t.size !== undefined && f.size !== undefined ? { min: Math.min(t.size.min, f.size.min), max: Math.max(t.size.max, f.size.max) } : undefined;
        const node: Node = { type, cost: addCost(c.cost, { min: Math.min(t.cost.min, f.cost.min), max: Math.max(t.cost.max, f.cost.max) }) };
        if (size !== undefined) node.size = size;
        return node;
      }
      case '_[_]':
      case '_[?_]':
        return this.index(e, args, name === '_[?_]');
      case 'dyn':
        return { type: DYN, cost: addCost(args[0]?.cost ?? fixed(0), fixed(1)), ...(args[0]?.size === undefined ? {} : { size: args[0].size }) };
      case OPT_SELECT: {
        const target = this.node(call.target!);
        const literal = call.args[0]?.exprKind.case === 'constExpr' ? call.args[0].exprKind.value.constantKind.value : undefined;
        const inner = target.type.kind === 'opaque' && target.type.name === 'optional_type' ? (target.type.param ?? DYN) : target.type;
        const field = typeof literal === 'string' ? this.fieldType(e, inner, literal) : DYN;
        return { type: field.kind === 'opaque' && field.name === 'optional_type' ? field : optionalOf(field), cost: addCost(target.cost, fixed(1)) };
      }
      case OPT_INDEX: {
        const target = this.node(call.target!);
        const inner = target.type.kind === 'opaque' && target.type.name === 'optional_type' ? { ...target, type: target.type.param ?? DYN } : target;
        const indexed = this.index(e, [inner, args[0]!], true);
        return { type: indexed.type, cost: addCost(indexed.cost, fixed(0)) };
      }
    }
    if (call.target !== undefined) {
      const target = this.node(call.target);
      return this.resolve(e, name, true, [target, ...args], fixed(0));
    }
    return this.resolve(e, name, false, args, fixed(0));
  }

  private expectBool(arg: Expr, t: CelT, fn: string): void {
    if (t.kind !== 'bool' && t.kind !== 'dyn' && t.kind !== 'param') {
      this.errors.push(this.source.error(arg.id, `found no matching overload for '${fn}' applied to '(${typeName(t)}, …)'`.replace(', …', '')));
    }
  }

  private index(e: Expr, args: Node[], optional: boolean): Node {
    const [container, key] = [args[0]!, args[1]!];
    let type: CelT = DYN;
    if (container.type.kind === 'list') {
      if (key.type.kind !== 'int' && key.type.kind !== 'uint' && key.type.kind !== 'dyn') this.noOverload(e, '_[_]', false, args);
      type = container.type.elem;
    } else if (container.type.kind === 'map') {
      type = container.type.value;
    } else if (container.type.kind === 'object') {
      type = DYN;
    } else if (container.type.kind !== 'dyn') {
      this.noOverload(e, '_[_]', false, args);
    }
    if (optional) type = { kind: 'opaque', name: 'optional_type', param: type };
    const node: Node = { type, cost: addCost(addCost(container.cost, key.cost), fixed(1)) };
    const size = sizeOfType(type);
    if (size !== undefined) node.size = size;
    return node;
  }

  private noOverload(e: Expr, name: string, member: boolean, args: Node[]): void {
    const types = args.map((a) => typeName(a.type));
    const applied = member ? `${types[0]}.(${types.slice(1).join(', ')})` : `(${types.join(', ')})`;
    this.errors.push(this.source.error(e.id, `found no matching overload for '${name}' applied to '${applied}'`));
  }

  private resolve(e: Expr, name: string, member: boolean, args: Node[], base: Size): Node {
    const candidates = (BY_NAME.get(name) ?? []).filter((o) => o.member === member && o.params.length === args.length);
    if (!BY_NAME.has(name)) {
      this.errors.push(this.source.error(e.id, `undeclared reference to '${name}' (in container '')`));
      return { type: DYN, cost: UNKNOWN_SIZE };
    }
    let argCost = base;
    for (const a of args) argCost = addCost(argCost, a.cost);
    let resultType: CelT | undefined;
    let fnCost: Size | undefined;
    let resultSize: Size | undefined;
    for (const overload of candidates) {
      const bindings: Bindings = new Map();
      if (!overload.params.every((p, i) => unify(p, args[i]!.type, bindings))) continue;
      const result = substitute(overload.result, bindings);
      resultType = resultType === undefined ? result : join(resultType, result);
      const estimate = overload.estimate?.(
        args.map((a) => a.size ?? UNKNOWN_SIZE),
        args.map((a) => a.type),
      ) ?? { cost: fixed(1) };
      fnCost = unionCost(fnCost, estimate.cost);
      if (estimate.resultSize !== undefined) resultSize = resultSize === undefined ? estimate.resultSize : unionCost(resultSize, estimate.resultSize);
    }
    if (resultType === undefined || fnCost === undefined) {
      this.noOverload(e, name, member, args);
      return { type: DYN, cost: argCost };
    }
    const node: Node = { type: resultType, cost: addCost(argCost, fnCost) };
    const size = resultSize ?? sizeOfType(resultType);
    if (size !== undefined) node.size = size;
    return node;
  }
}

/** analyze type-checks and costs a parsed rule with the given variables (`self`, `oldSelf`). */
export function analyze(expr: Expr, source: Source, variables: ReadonlyMap<string, CelT>): Analysis {
  const checker = new Checker(source, variables);
  const root = checker.node(expr);
  return { type: root.type, cost: root.cost, errors: [...new Set(checker.errors)], usesOldSelf: checker.usesOldSelf };
}

/** MAX_COST is the saturated estimate. */
export const MAX_COST = MAX_UINT64;
