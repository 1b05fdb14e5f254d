/**
 * The Kubernetes `lists` library (isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's
 * `sets` extension (sets.contains, sets.equivalent, sets.intersects), with the apiserver's costs:
 * one unit per element (plus the string traversal for lists of strings), and the product of the
 * two sizes for sets.
 */
import { celList, isCelList, isCelMap, type CelList, type CelValue } from '@bufbuild/cel';
import { BOOL, type CelT, DOUBLE, DURATION, INT, listOf, STRING, BYTES, TIMESTAMP, UINT } from './cel-types.ts';
import { addCost, byFactor, fixed, mulCost, type Overload, PARAM_A, STRING_TRAVERSAL_COST_FACTOR, type Size, UNKNOWN_SIZE } from './overloads.ts';
import { callStd, RuleEvalError, type Value, valueSize, valuesEqual } from './runtime-values.ts';

function list(v: Value): CelList {
  if (!isCelList(v)) throw new RuleEvalError('no such overload');
  return v;
}

function less(a: Value, b: Value): boolean {
  return callStd('_<_', undefined, [a, b]) === true;
}

const elementCost = (types: readonly CelT[], sizes: readonly Size[]): Size => {
  const t = types[0];
  const elem = t?.kind === 'list' ? t.elem : undefined;
  let cost = fixed(1);
  if (elem !== undefined && (elem.kind === 'string' || elem.kind === 'bytes')) {
    cost = addCost(cost, byFactor(elem.bound === undefined ? UNKNOWN_SIZE : { min: 0, max: elem.bound.maxElements }, STRING_TRAVERSAL_COST_FACTOR));
  }
  return mulCost(sizes[0] ?? UNKNOWN_SIZE, cost);
};

/** traversalCost is the apiserver's run-time traversal of a value as a data tree: strings and bytes a tenth of their length (rounded down), containers the sum of their entries, anything else 1. */
function traversalCost(v: Value, depth: number): number {
  if (typeof v === 'string' || v instanceof Uint8Array) return Math.floor(valueSize(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (depth > 64) return 1;
  if (isCelList(v)) {
    let cost = 0;
    for (const item of v) cost += traversalCost(item, depth + 1);
    return cost;
  }
  if (isCelMap(v)) {
    let cost = 0;
    for (const [k, item] of v) cost += traversalCost(k as Value, depth + 1) + traversalCost(item, depth + 1);
    return cost;
  }
  return 1;
}

const perElement: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes, types) => ({ cost: elementCost(types, sizes) }),
  cost: (args) => traversalCost(args[0]!, 0),
};

function sum(args: readonly Value[]): Value {
  const items = [...list(args[0]!)];
  let total: Value | undefined;
  for (const item of items) total = total === undefined ? item : (callStd('_+_', undefined, [total, item]) ?? fail());
  if (total !== undefined) return total;
  return 0n;
}

function fail(): never {
  throw new RuleEvalError('no such overload');
}

function extreme(pickLess: boolean, name: string) {
  return (args: readonly Value[]): Value => {
    const items = [...list(args[0]!)];
    if (items.length === 0) throw new RuleEvalError(`${name} called on empty list`);
    let best: Value = items[0]!;
    for (const item of items.slice(1)) if (pickLess ? less(item, best) : less(best, item)) best = item;
    return best;
  };
}

function indexOf(last: boolean) {
  return (args: readonly Value[]): Value => {
    const items = [...list(args[0]!)];
    const order = last ? items.map((_, i) => items.length - 1 - i) : items.map((_, i) => i);
    for (const i of order) if (valuesEqual(items[i]!, args[1]!)) return BigInt(i);
    return -1n;
  };
}

const SORTABLE: CelT[] = [INT, UINT, DOUBLE, STRING, BYTES, DURATION, TIMESTAMP, BOOL];
const SUMMABLE: CelT[] = [INT, UINT, DOUBLE, DURATION];

const m = (name: string, params: CelT[], result: CelT, extra: Partial<Overload>): Overload => ({ name, member: true, params, result, ...perElement, ...extra });

/** LISTS_OVERLOADS are the `lists` library. */
export const LISTS_OVERLOADS: readonly Overload[] = [
  ...SORTABLE.map((t) =>
    m('isSorted', [listOf(t)], BOOL, {
      impl: (args) => {
        const items = [...list(args[0]!)];
        for (let i = 1; i < items.length; i++) if (less(items[i]!, items[i - 1]!)) return false;
        return true;
      },
    }),
  ),
  ...SUMMABLE.map((t) => m('sum', [listOf(t)], t, { impl: sum })),
  ...SORTABLE.map((t) => m('min', [listOf(t)], t, { impl: extreme(true, 'min') })),
  ...SORTABLE.map((t) => m('max', [listOf(t)], t, { impl: extreme(false, 'max') })),
  m('indexOf', [listOf(PARAM_A), PARAM_A], INT, { impl: indexOf(false) }),
  m('lastIndexOf', [listOf(PARAM_A), PARAM_A], INT, { impl: indexOf(true) }),
];

const setCost: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes) => ({ cost: mulCost(sizes[0] ?? UNKNOWN_SIZE, sizes[1] ?? UNKNOWN_SIZE) }),
  cost: (args) => Math.max(1, valueSize(args[0]!) * valueSize(args[1]!)),
};

function containsAll(haystack: CelList, needles: CelList): boolean {
  const items = [...haystack];
  for (const needle of needles) if (!items.some((item) => valuesEqual(item, needle))) return false;
  return true;
}

/** SETS_OVERLOADS are cel-go's `sets` extension. */
export const SETS_OVERLOADS: readonly Overload[] = [
  {
    name: 'sets.contains',
    member: false,
    params: [listOf(PARAM_A), listOf(PARAM_A)],
    result: BOOL,
    ...setCost,
    impl: (args) => containsAll(list(args[0]!), list(args[1]!)),
  },
  {
    name: 'sets.equivalent',
    member: false,
    params: [listOf(PARAM_A), listOf(PARAM_A)],
    result: BOOL,
    ...setCost,
    impl: (args) => containsAll(list(args[0]!), list(args[1]!)) && containsAll(list(args[1]!), list(args[0]!)),
  },
  {
    name: 'sets.intersects',
    member: false,
    params: [listOf(PARAM_A), listOf(PARAM_A)],
    result: BOOL,
    ...setCost,
    impl: (args) => {
      const other = [...list(args[1]!)];
      for (const item of list(args[0]!)) if (other.some((o) => valuesEqual(item, o))) return true;
      return false;
    },
  },
];

/** emptyList is `[]` as a run-time value. */
export function emptyList(): CelValue {
  return celList([]);
}
