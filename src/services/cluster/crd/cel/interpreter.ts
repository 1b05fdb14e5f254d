/**
 * Evaluates a parsed rule with a cost meter, so a runaway rule stops at its per-call limit (cel-go's
 * `actual cost limit exceeded`) instead of running on: identifiers and selections cost 1, calls
 * their overload's run-time cost, list/map literals 10/30, as cel-go's runtime cost tracker counts.
 * Values are @bufbuild/cel's, standard functions are @bufbuild/cel's; library functions are ours.
 */
import { celList, celMap, isCelError, isCelList, isCelMap, isCelUint, type CelValue } from '@bufbuild/cel';
import type { Expr } from './ast.ts';
import { overloadsNamed, qualifiedName } from './analyze.ts';
import type { CelT } from './cel-types.ts';
import { TYPE_NAMES } from './overloads.ts';
import { OPT_INDEX, OPT_SELECT } from './optional-syntax.ts';
import {
  callStd,
  CostLimitExceeded,
  inEvalContext,
  RuleEvalError,
  isMessageOf,
  Opaque,
  Optional,
  type Value,
  valueTypeName,
  valuesEqual,
} from './runtime-values.ts';
import { unescapeFieldName } from './cel-types.ts';

/** Meter counts a call's cost against its limit. */
export class Meter {
  cost = 0;
  constructor(readonly limit: number) {}
  /** add charges `n` units and stops the evaluation past the limit. */
  add(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded();
  }
}

type Scope = ReadonlyMap<string, Value>;

function matchesType(t: CelT, v: Value): boolean {
  switch (t.kind) {
    case 'dyn':
    case 'param':
      return true;
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return isCelUint(v);
    case 'double':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null':
      return v === null;
    case 'list':
      return isCelList(v);
    case 'map':
      return isCelMap(v);
    case 'timestamp':
      return isMessageOf(v, 'google.protobuf.Timestamp');
    case 'duration':
      return isMessageOf(v, 'google.protobuf.Duration');
    case 'opaque':
      return v instanceof Opaque && v.typeName === (t.name === 'optional_type' ? 'optional_type' : t.name);
    default:
      return false;
  }
}

/** Interpreter evaluates one rule. */
export class Interpreter {
  private depth = 0;
  constructor(
    private readonly meter: Meter,
    private readonly globals: ReadonlyMap<string, Value>,
  ) {}

  /** eval evaluates a node; errors propagate as RuleEvalError exceptions except where CEL absorbs them (`&&`, `||`, `?:`). */
  eval(e: Expr, scope: Scope): Value {
    if (this.depth === 0) {
      this.depth++;
      try {
        return inEvalContext(() => this.visit(e, scope));
      } finally {
        this.depth--;
      }
    }
    if (++this.depth > 500) throw new RuleEvalError('expression recursion limit exceeded');
    try {
      return this.visit(e, scope);
    } finally {
      this.depth--;
    }
  }

  private visit(e: Expr, scope: Scope): Value {
    const kind = e.exprKind;
    switch (kind.case) {
      case 'constExpr': {
        const c = kind.value.constantKind;
        if (c.case === 'nullValue') return null;
        if (c.case === 'uint64Value') return callStd('uint', undefined, [c.value]) ?? null;
        return (c.value ?? null) as CelValue;
      }
      case 'identExpr': {
        this.meter.add(1);
        const name = kind.value.name;
        if (scope.has(name)) return scope.get(name)!;
        if (this.globals.has(name)) return this.globals.get(name)!;
        if (TYPE_NAMES.has(name)) return name;
        throw new RuleEvalError(`no such attribute: ${name}`);
      }
      case 'selectExpr': {
        const sel = kind.value;
        const operand = this.eval(sel.operand!, scope);
        this.meter.add(1);
        if (sel.testOnly) return this.has(operand, sel.field);
        return this.select(operand, sel.field);
      }
      case 'callExpr':
        return this.call(kind.value, scope);
      case 'listExpr': {
        this.meter.add(10);
        return celList(kind.value.elements.map((el) => this.eval(el, scope) as CelValue));
      }
      case 'structExpr': {
        this.meter.add(30);
        const entries = new Map<string | bigint | boolean, CelValue>();
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case !== 'mapKey') throw new RuleEvalError('unsupported message creation');
          const key = this.eval(entry.keyKind.value, scope);
          if (typeof key !== 'string' && typeof key !== 'bigint' && typeof key !== 'boolean') throw new RuleEvalError('unsupported key type');
          if (entries.has(key)) throw new RuleEvalError(`Failed with repeated key: ${String(key)}`);
          entries.set(key, this.eval(entry.value!, scope) as CelValue);
        }
        return celMap(entries);
      }
      case 'comprehensionExpr': {
        const c = kind.value;
        const range = this.eval(c.iterRange!, scope);
        let items: Value[];
        if (isCelList(range)) items = [...range];
        else if (isCelMap(range)) items = [...range.keys()];
        else throw new RuleEvalError(`no such overload`);
        let accu = this.eval(c.accuInit!, scope);
        // One scope for the whole loop: CEL has no closures, so nothing keeps a reference to it.
        const inner = new Map(scope);
        for (const item of items) {
          inner.set(c.accuVar, accu);
          inner.set(c.iterVar, item);
          const cond = this.eval(c.loopCondition!, inner);
          if (cond === false) break;
          accu = this.eval(c.loopStep!, inner);
        }
        if (scope.has(c.iterVar)) inner.set(c.iterVar, scope.get(c.iterVar)!);
        else inner.delete(c.iterVar);
        inner.set(c.accuVar, accu);
        return this.eval(c.result!, inner);
      }
      default:
        throw new RuleEvalError('unsupported expression');
    }
  }

  private has(operand: Value, field: string): boolean {
    if (isCelMap(operand)) return operand.has(field) || operand.has(unescapeFieldName(field));
    throw new RuleEvalError(`invalid type for field selection.`);
  }

  private select(operand: Value, field: string): Value {
    if (isCelMap(operand)) {
      if (operand.has(field)) return operand.get(field)!;
      const unescaped = unescapeFieldName(field);
      if (operand.has(unescaped)) return operand.get(unescaped)!;
      throw new RuleEvalError(`no such key: ${field}`);
    }
    if (operand instanceof Optional) return operand.value === undefined ? operand : new Optional(this.select(operand.value, field));
    throw new RuleEvalError(`no such overload`);
  }

  private index(container: Value, key: Value): Value {
    if (isCelList(container)) {
      let i: number;
      if (typeof key === 'bigint') i = Number(key);
      else if (isCelUint(key)) i = Number(key.value);
      else if (typeof key === 'number' && Number.isInteger(key)) i = key;
      else throw new RuleEvalError('no such overload');
      if (i < 0 || i >= container.size) throw new RuleEvalError(`index out of bounds: ${i}`);
      return container.get(i)!;
    }
    if (isCelMap(container)) {
      if (typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || typeof key === 'number' || isCelUint(key)) {
        const found = container.get(key);
        if (found !== undefined) return found;
      }
      throw new RuleEvalError(`no such key: ${typeof key === 'string' ? key : String(key)}`);
    }
    throw new RuleEvalError('no such overload');
  }

  private call(call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'], scope: Scope): Value {
    const name = call.function;
    switch (name) {
      case '_&&_':
      case '_||_': {
        const stop = name === '_||_';
        let error: unknown;
        for (const arg of call.args) {
          try {
            const v = this.eval(arg, scope);
            if (v === stop) return stop;
            if (typeof v !== 'boolean') throw new RuleEvalError('no such overload');
          } catch (err) {
            if (err instanceof CostLimitExceeded) throw err;
            error ??= err;
          }
        }
        if (error !== undefined) throw error;
        return !stop;
      }
      case '@not_strictly_false': {
        this.meter.add(1);
        try {
          return this.eval(call.args[0]!, scope) !== false;
        } catch (err) {
          if (err instanceof CostLimitExceeded) throw err;
          return true;
        }
      }
      case '_?_:_': {
        const cond = this.eval(call.args[0]!, scope);
        if (typeof cond !== 'boolean') throw new RuleEvalError('no such overload');
        return this.eval(call.args[cond ? 1 : 2]!, scope);
      }
      case '_[_]': {
        const container = this.eval(call.args[0]!, scope);
        const key = this.eval(call.args[1]!, scope);
        this.meter.add(1);
        return this.index(container, key);
      }
      case OPT_SELECT:
      case OPT_INDEX: {
        let target = this.eval(call.target!, scope);
        const key = this.eval(call.args[0]!, scope);
        this.meter.add(1);
        if (target instanceof Optional) {
          if (target.value === undefined) return target;
          target = target.value;
        }
        try {
          return new Optional(name === OPT_SELECT ? this.select(target, String(key)) : this.index(target, key));
        } catch (err) {
          if (err instanceof CostLimitExceeded || !(err instanceof RuleEvalError)) throw err;
          return new Optional(undefined);
        }
      }
      case '_[?_]': {
        const container = this.eval(call.args[0]!, scope);
        const key = this.eval(call.args[1]!, scope);
        this.meter.add(1);
        try {
          return new Optional(this.index(container, key));
        } catch (err) {
          if (err instanceof CostLimitExceeded) throw err;
          return new Optional(undefined);
        }
      }
    }
    const qualifier = call.target === undefined ? undefined : qualifiedName(call.target);
    if (qualifier !== undefined && !scope.has(qualifier.split('.')[0]!) && !this.globals.has(qualifier.split('.')[0]!)) {
      const qualified = `${qualifier}.${name}`;
      if (overloadsNamed(qualified).length > 0)
        return this.dispatch(
          qualified,
          false,
          call.args.map((a) => this.eval(a, scope)),
        );
    }
    const args = call.args.map((a) => this.eval(a, scope));
    if (call.target !== undefined) return this.dispatch(name, true, [this.eval(call.target, scope), ...args]);
    return this.dispatch(name, false, args);
  }

  private dispatch(name: string, member: boolean, args: Value[]): Value {
    for (const overload of overloadsNamed(name)) {
      if (overload.member !== member || overload.params.length !== args.length) continue;
      if (!overload.params.every((p, i) => matchesType(p, args[i]!))) continue;
      this.meter.add(overload.cost?.(args) ?? 1);
      if (overload.impl !== undefined) return overload.impl(args);
      if (name === '_==_' || name === '_!=_') return valuesEqual(args[0]!, args[1]!) === (name === '_==_');
      if (name === 'type') return valueTypeName(args[0]!);
      const result = member ? callStd(name, args[0], args.slice(1)) : callStd(name, undefined, args);
      if (result === undefined) break;
      if (isCelError(result)) throw new RuleEvalError(result.message);
      return result;
    }
    if (name === '_==_' || name === '_!=_') {
      this.meter.add(1);
      return valuesEqual(args[0]!, args[1]!) === (name === '_==_');
    }
    throw new RuleEvalError(`no such overload: ${name}`);
  }
}
