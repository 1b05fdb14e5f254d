/**
 * The run-time values of validation rules: `@bufbuild/cel`'s values (bigint ints, numbers,
 * strings, CelList, CelMap, timestamp/duration messages) plus the Kubernetes library's opaque
 * values (optionals, quantities, URLs, IPs, CIDRs, named formats), and the conversion of a
 * custom object's JSON into them as its schema types it (integers → int, date-time → timestamp).
 */
import { CelScalar, celEnv, celFunc, celList, celMap, isCelList, isCelMap, isCelUint, parse, plan, type CelValue } from '@bufbuild/cel';
import type { JSONSchemaProps } from '../types.ts';
import { additionalPropertiesSchema, itemsSchema } from './cel-types.ts';

/** RuleEvalError is a run-time failure of a rule (`no such key: x`, `division by zero`, …), reported as cel-go words it. */
export class RuleEvalError extends Error {
  override readonly name = 'RuleEvalError';
}

/** CostLimitExceeded stops an evaluation that ran past its per-call cost limit. */
export class CostLimitExceeded extends Error {
  override readonly name = 'CostLimitExceeded';
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** Opaque is the base of the library's opaque values; `typeName` is their CEL type name. */
export abstract class Opaque {
  abstract readonly typeName: string;
  /** equals is CEL equality between two values of the same opaque type. */
  abstract equals(other: Opaque): boolean;
}

/** Optional is CEL's `optional_type`: a value or none. */
export class Optional extends Opaque {
  readonly typeName = 'optional_type';
  constructor(readonly value: Value | undefined) {
    super();
  }
  /** equals holds when both are empty or both hold equal values. */
  equals(other: Opaque): boolean {
    if (!(other instanceof Optional)) return false;
    if (this.value === undefined || other.value === undefined) return this.value === other.value;
    return valuesEqual(this.value, other.value);
  }
}

/** Value is any run-time value of a rule. */
export type Value = CelValue | Opaque;

/** NONE is the empty optional. */
export const NONE = new Optional(undefined);

const stdEnv = celEnv();

// @bufbuild/cel's timestamp/duration and message functions read an evaluation context that only its
// own planned programs set up; running our evaluation as a function called by a one-call program
// gives it that context.
let pending: (() => void) | undefined;
let insideContext = false;
const contextProgram = plan(
  celEnv({
    funcs: [
      celFunc('fogbank_in_eval_context', [], CelScalar.BOOL, () => {
        pending?.();
        return true;
      }),
    ],
  }),
  parse('fogbank_in_eval_context()'),
);

/** inEvalContext runs `fn` inside @bufbuild/cel's evaluation context and returns its result (or rethrows its error). */
export function inEvalContext<T>(fn: () => T): T {
  let result: { value: T } | undefined;
  let failure: { error: unknown } | undefined;
  if (insideContext) return fn();
  const previous = pending;
  pending = () => {
    insideContext = true;
    try {
      result = { value: fn() };
    } catch (error) {
      failure = { error };
    } finally {
      insideContext = false;
    }
  };
  try {
    contextProgram();
  } finally {
    pending = previous;
  }
  if (failure !== undefined) throw failure.error;
  if (result === undefined) throw new RuleEvalError('evaluation did not run');
  return result.value;
}

/** callStd runs one of @bufbuild/cel's standard functions by name, or returns undefined when none applies to the arguments. */
export function callStd(name: string, target: Value | undefined, args: readonly Value[]): Value | undefined {
  const group = stdEnv.funcs.find(name);
  if (group === undefined) return undefined;
  if (target instanceof Opaque || args.some((a) => a instanceof Opaque)) return undefined;
  let result: ReturnType<typeof group.call>;
  try {
    result = inEvalContext(() => group.call(0, target as CelValue | undefined, args as CelValue[]));
  } catch (error) {
    throw new RuleEvalError(celGoMessage(error instanceof Error ? error.message : String(error)));
  }
  if (result === undefined) return undefined;
  if (result instanceof Error) throw new RuleEvalError(celGoMessage(result.message));
  return result;
}

/** celGoMessage rewords @bufbuild/cel's arithmetic errors as cel-go prints them (`division by zero`, `integer overflow`). */
export function celGoMessage(message: string): string {
  if (/^u?int divide by zero$/.test(message)) return 'division by zero';
  if (/^u?int modulus by zero$/.test(message)) return 'modulus by zero';
  if (/^int overflow/.test(message)) return 'integer overflow';
  if (/^uint overflow/.test(message)) return 'unsigned integer overflow';
  return message;
}

/** valuesEqual is CEL's `==` (numbers compare across int/uint/double; lists and maps deeply). */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a instanceof Opaque || b instanceof Opaque) return a instanceof Opaque && b instanceof Opaque && a.typeName === b.typeName && a.equals(b);
  return callStd('_==_', undefined, [a, b]) === true;
}

/** isTimestamp tells a google.protobuf.Timestamp message value. */
export function isMessageOf(value: unknown, typeName: string): boolean {
  return typeof value === 'object' && value !== null && (value as { desc?: { typeName?: string } }).desc?.typeName === typeName;
}

/** valueTypeName is the CEL type name of a run-time value, as `no such overload` messages print it. */
export function valueTypeName(v: Value): string {
  if (v instanceof Opaque) return v.typeName;
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (isCelUint(v)) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isMessageOf(v, 'google.protobuf.Timestamp')) return 'google.protobuf.Timestamp';
  if (isMessageOf(v, 'google.protobuf.Duration')) return 'google.protobuf.Duration';
  return 'type';
}

/** valueSize is a value's size for run-time cost: string length, list/map entries, 1 for scalars. */
export function valueSize(v: Value): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (isCelList(v) || isCelMap(v)) return v.size;
  return 1;
}

/** toCel converts a JSON value to the rule's value the way its schema types it; nodes CEL cannot see keep their JSON shape. */
export function toCel(value: unknown, schema: JSONSchemaProps | undefined, depth = 0): Value {
  if (value === null || value === undefined) return null;
  if (depth > 512) throw new RuleEvalError('object nested too deeply');
  if (Array.isArray(value)) {
    const items = schema === undefined ? undefined : itemsSchema(schema);
    return celList(value.map((item) => toCel(item, items, depth + 1) as CelValue));
  }
  if (typeof value === 'object') {
    const additional = schema === undefined ? undefined : additionalPropertiesSchema(schema);
    const entries = new Map<string, CelValue>();
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const sub = schema?.properties?.[key] ?? additional;
      entries.set(key, toCel(item, sub, depth + 1) as CelValue);
    }
    return celMap(entries);
  }
  if (typeof value === 'number') {
    if (schema?.type === 'integer' || (schema?.type !== 'number' && Number.isInteger(value))) return BigInt(value);
    return value;
  }
  if (typeof value === 'string' && schema?.type === 'string') {
    if (schema.format === 'date-time' || schema.format === 'date') {
      const stamp = schema.format === 'date' ? `${value}T00:00:00Z` : value;
      try {
        const parsed = callStd('timestamp', undefined, [stamp]);
        if (parsed !== undefined) return parsed;
      } catch {
        // an unparseable value stays a string; schema validation reports it
      }
    }
    if (schema.format === 'duration') {
      try {
        const parsed = callStd('duration', undefined, [value]);
        if (parsed !== undefined) return parsed;
      } catch {
        // as above
      }
    }
    if (schema.format === 'byte') {
      try {
        return Uint8Array.from(Buffer.from(value, 'base64'));
      } catch {
        return value;
      }
    }
  }
  return value as CelValue;
}

/** fromCel converts a rule's value back to plain JSON-ish data (for messageExpression results and tests). */
export function fromCel(v: Value): unknown {
  if (v instanceof Optional) return v.value === undefined ? undefined : fromCel(v.value);
  if (typeof v === 'bigint') return Number(v);
  if (isCelList(v)) return [...v].map((item) => fromCel(item));
  if (isCelMap(v)) return Object.fromEntries([...v.entries()].map(([k, item]) => [String(k), fromCel(item)]));
  if (isCelUint(v)) return Number(v.value);
  return v;
}
