/**
 * Function declarations of the rule environment: each overload's signature (for the type
 * checker), its static cost estimate (as cel-go's checker and the apiserver's library cost
 * estimator compute it) and its run-time cost and implementation. Overloads without an
 * implementation run @bufbuild/cel's standard one.
 */
import { BOOL, BYTES, type CelT, DOUBLE, DURATION, DYN, INT, listOf, mapOf, NULL, STRING, TIMESTAMP, TYPE, UINT } from './cel-types.ts';
import type { Value } from './runtime-values.ts';
import { valueSize } from './runtime-values.ts';

/** Size is a [min, max] estimate of a value's size. */
export interface Size {
  readonly min: number;
  readonly max: number;
}

/** MAX_UINT64 stands for an unbounded estimate (cel-go saturates at math.MaxUint64). */
export const MAX_UINT64 = 2 ** 64 - 1;

/** STRING_TRAVERSAL_COST_FACTOR and REGEX_STRING_LENGTH_COST_FACTOR are cel-go's cost factors. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

/** UNKNOWN_SIZE is a size nothing is known about. */
export const UNKNOWN_SIZE: Size = { min: 0, max: MAX_UINT64 };

/** sat keeps an estimate within uint64, as cel-go's saturating arithmetic does. */
export function sat(n: number): number {
  return n >= MAX_UINT64 || !Number.isFinite(n) ? MAX_UINT64 : n;
}

/** addCost adds two estimates. */
export function addCost(a: Size, b: Size): Size {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

/** mulCost multiplies two estimates. */
export function mulCost(a: Size, b: Size): Size {
  return { min: sat(a.min * b.min), max: sat(a.max * b.max) };
}

/** byFactor is `MultiplyByCostFactor`: each bound times the factor, rounded up. */
export function byFactor(size: Size, factor: number): Size {
  return { min: sat(Math.ceil(size.min * factor)), max: sat(Math.ceil(size.max * factor)) };
}

/** fixed is an exact estimate. */
export function fixed(n: number): Size {
  return { min: n, max: n };
}

/** CallEstimate is the cost of one call (without its arguments) and the size of its result. */
export interface CallEstimate {
  readonly cost: Size;
  readonly resultSize?: Size;
}

/** Overload is one signature of a function or method. */
export interface Overload {
  /** name is how rules call it (`size`, `isSorted`, `sets.contains`, `format.dns1123Label`). */
  readonly name: string;
  /** member is true for `target.name(args)` calls; `params[0]` is then the target. */
  readonly member: boolean;
  readonly params: readonly CelT[];
  readonly result: CelT;
  /** estimate is the static cost of the call from its target and argument sizes; 1 when absent. */
  readonly estimate?: undefined | ((sizes: readonly Size[], types: readonly CelT[]) => CallEstimate);
  /** cost is the run-time cost of the call from its actual arguments; 1 when absent. */
  readonly cost?: ((args: readonly Value[]) => number) | undefined;
  /** impl computes the result; absent for functions @bufbuild/cel implements. */
  readonly impl?: ((args: readonly Value[]) => Value) | undefined;
}

const A: CelT = { kind: 'param', name: 'A' };
const B: CelT = { kind: 'param', name: 'B' };

/** traversal is a cost proportional to the size of argument `index` (cel-go's O(n) string functions). */
export function traversal(index: number): Pick<Overload, 'estimate' | 'cost'> {
  return {
    estimate: (sizes) => ({ cost: byFactor(sizes[index] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR) }),
    cost: (args) => Math.ceil(valueSize(args[index]!) * STRING_TRAVERSAL_COST_FACTOR),
  };
}

/** parsedAtRunTime is the apiserver's quirk for global parsing functions (`quantity`, `ip`, `cidr`, `isIP`, …): its estimator
 * prices them only as methods, so statically they cost 1, while at run time they cost a traversal of their argument. */
export function parsedAtRunTime(index: number, factor = 1): Pick<Overload, 'estimate' | 'cost'> {
  return {
    estimate: () => ({ cost: fixed(1) }),
    cost: (args) => Math.ceil(valueSize(args[index]!) * factor * STRING_TRAVERSAL_COST_FACTOR),
  };
}

/** doubleTraversal is the cost of functions that traverse their target and build a result of its size (replace, split). */
export function doubleTraversal(): Pick<Overload, 'estimate' | 'cost'> {
  return {
    estimate: (sizes) => ({ cost: byFactor(sizes[0] ?? UNKNOWN_SIZE, 2 * STRING_TRAVERSAL_COST_FACTOR) }),
    cost: (args) => Math.ceil(valueSize(args[0]!) * 2 * STRING_TRAVERSAL_COST_FACTOR),
  };
}

function fn(name: string, params: CelT[], result: CelT, extra: Partial<Overload> = {}): Overload {
  return { name, member: false, params, result, ...extra };
}

function method(name: string, params: CelT[], result: CelT, extra: Partial<Overload> = {}): Overload {
  return { name, member: true, params, result, ...extra };
}

const comparable: [CelT, CelT][] = [
  [BOOL, BOOL],
  [BYTES, BYTES],
  [DOUBLE, DOUBLE],
  [STRING, STRING],
  [INT, INT],
  [UINT, UINT],
  [INT, UINT],
  [UINT, INT],
  [INT, DOUBLE],
  [DOUBLE, INT],
  [UINT, DOUBLE],
  [DOUBLE, UINT],
  [TIMESTAMP, TIMESTAMP],
  [DURATION, DURATION],
];

const equalityEstimate: Overload['estimate'] = (sizes) => {
  const smallestMax = Math.min(sizes[0]?.max ?? MAX_UINT64, sizes[1]?.max ?? MAX_UINT64);
  return { cost: byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL_COST_FACTOR) };
};

const equalityCost = (args: readonly Value[]): number => Math.ceil(Math.min(valueSize(args[0]!), valueSize(args[1]!)) * STRING_TRAVERSAL_COST_FACTOR);

const concatEstimate =
  (list: boolean): Overload['estimate'] =>
  (sizes) => {
    const resultSize = addCost(sizes[0] ?? UNKNOWN_SIZE, sizes[1] ?? UNKNOWN_SIZE);
    return { cost: list ? fixed(1) : byFactor(resultSize, STRING_TRAVERSAL_COST_FACTOR), resultSize };
  };

const TIME_GETTERS = [
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
];

/** STANDARD_OVERLOADS are CEL's standard operators and functions (implemented by @bufbuild/cel). */
export const STANDARD_OVERLOADS: readonly Overload[] = [
  fn('_+_', [INT, INT], INT),
  fn('_+_', [UINT, UINT], UINT),
  fn('_+_', [DOUBLE, DOUBLE], DOUBLE),
  fn('_+_', [STRING, STRING], STRING, {
    estimate: concatEstimate(false),
    cost: (args) => Math.ceil((valueSize(args[0]!) + valueSize(args[1]!)) * STRING_TRAVERSAL_COST_FACTOR),
  }),
  fn('_+_', [BYTES, BYTES], BYTES, {
    estimate: concatEstimate(false),
    cost: (args) => Math.ceil((valueSize(args[0]!) + valueSize(args[1]!)) * STRING_TRAVERSAL_COST_FACTOR),
  }),
  fn('_+_', [listOf(A), listOf(A)], listOf(A), { estimate: concatEstimate(true) }),
  fn('_+_', [TIMESTAMP, DURATION], TIMESTAMP),
  fn('_+_', [DURATION, TIMESTAMP], TIMESTAMP),
  fn('_+_', [DURATION, DURATION], DURATION),
  ...['_-_', '_*_', '_/_'].flatMap((op) => [fn(op, [INT, INT], INT), fn(op, [UINT, UINT], UINT), fn(op, [DOUBLE, DOUBLE], DOUBLE)]),
  fn('_-_', [TIMESTAMP, TIMESTAMP], DURATION),
  fn('_-_', [TIMESTAMP, DURATION], TIMESTAMP),
  fn('_-_', [DURATION, DURATION], DURATION),
  fn('_%_', [INT, INT], INT),
  fn('_%_', [UINT, UINT], UINT),
  fn('-_', [INT], INT),
  fn('-_', [DOUBLE], DOUBLE),
  fn('!_', [BOOL], BOOL),
  fn('_==_', [A, A], BOOL, { estimate: equalityEstimate, cost: equalityCost }),
  fn('_!=_', [A, A], BOOL, { estimate: equalityEstimate, cost: equalityCost }),
  ...['_<_', '_<=_', '_>_', '_>=_'].flatMap((op) =>
    comparable.map(([l, r]) =>
      l.kind === 'string' || l.kind === 'bytes' ? fn(op, [l, r], BOOL, { estimate: equalityEstimate, cost: equalityCost }) : fn(op, [l, r], BOOL),
    ),
  ),
  fn('@in', [A, listOf(A)], BOOL, {
    estimate: (sizes) => ({ cost: sizes[1] ?? UNKNOWN_SIZE }),
    cost: (args) => valueSize(args[1]!),
  }),
  fn('@in', [A, mapOf(A, B)], BOOL),
  ...[STRING, BYTES, listOf(A), mapOf(A, B)].flatMap((t) => [fn('size', [t], INT), method('size', [t], INT)]),
  method('contains', [STRING, STRING], BOOL, {
    estimate: (sizes) => ({
      cost: mulCost(byFactor(sizes[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR), byFactor(sizes[1] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR)),
    }),
    cost: (args) => Math.ceil(valueSize(args[0]!) * STRING_TRAVERSAL_COST_FACTOR) * Math.ceil(valueSize(args[1]!) * STRING_TRAVERSAL_COST_FACTOR),
  }),
  method('startsWith', [STRING, STRING], BOOL, traversal(1)),
  method('endsWith', [STRING, STRING], BOOL, traversal(1)),
  fn('int', [INT], INT),
  fn('int', [UINT], INT),
  fn('int', [DOUBLE], INT),
  fn('int', [STRING], INT),
  fn('int', [TIMESTAMP], INT),
  fn('uint', [UINT], UINT),
  fn('uint', [INT], UINT),
  fn('uint', [DOUBLE], UINT),
  fn('uint', [STRING], UINT),
  fn('double', [DOUBLE], DOUBLE),
  fn('double', [INT], DOUBLE),
  fn('double', [UINT], DOUBLE),
  fn('double', [STRING], DOUBLE),
  fn('string', [STRING], STRING),
  fn('string', [BOOL], STRING),
  fn('string', [INT], STRING),
  fn('string', [UINT], STRING),
  fn('string', [DOUBLE], STRING),
  fn('string', [BYTES], STRING, traversal(0)),
  fn('string', [TIMESTAMP], STRING),
  fn('string', [DURATION], STRING),
  fn('bytes', [BYTES], BYTES),
  fn('bytes', [STRING], BYTES, traversal(0)),
  fn('bool', [BOOL], BOOL),
  fn('bool', [STRING], BOOL),
  fn('timestamp', [TIMESTAMP], TIMESTAMP),
  fn('timestamp', [STRING], TIMESTAMP),
  fn('timestamp', [INT], TIMESTAMP),
  fn('duration', [DURATION], DURATION),
  fn('duration', [STRING], DURATION),
  fn('type', [A], TYPE),
  fn('dyn', [A], DYN),
  ...TIME_GETTERS.flatMap((name) => [method(name, [TIMESTAMP], INT), method(name, [TIMESTAMP, STRING], INT)]),
  ...['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].map((name) => method(name, [DURATION], INT)),
];

/** TYPE_NAMES are the type identifiers rules may compare with `type(x)` (`type(x) == string`). */
export const TYPE_NAMES: ReadonlyMap<string, CelT> = new Map([
  ['bool', BOOL],
  ['int', INT],
  ['uint', UINT],
  ['double', DOUBLE],
  ['string', STRING],
  ['bytes', BYTES],
  ['list', listOf(DYN)],
  ['map', mapOf(DYN, DYN)],
  ['null_type', NULL],
  ['type', TYPE],
]);

/** PARAM_A and PARAM_B are the type parameters library declarations use. */
export const PARAM_A = A;
export const PARAM_B = B;
