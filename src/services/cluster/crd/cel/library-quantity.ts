/**
 * The Kubernetes `quantity` library: `quantity('1.5Gi')`, `isQuantity`, and the Quantity methods
 * (sign, isInteger, asInteger, asApproximateFloat, add, sub, isLessThan, isGreaterThan,
 * compareTo). Quantities are exact rationals here, so `quantity('0.1').add(quantity('0.2'))`
 * compares equal to `quantity('0.3')` as resource.Quantity's inf.Dec arithmetic does.
 */
import { BOOL, DOUBLE, INT, opaque, STRING } from './cel-types.ts';
import { type Overload, parsedAtRunTime } from './overloads.ts';
import { RuleEvalError, Opaque, type Value } from './runtime-values.ts';

const QUANTITY = opaque('kubernetes.Quantity');

/** QUANTITY_FORMAT_ERROR is resource.ParseQuantity's error for malformed text. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const BINARY: Record<string, bigint> = { Ki: 2n ** 10n, Mi: 2n ** 20n, Gi: 2n ** 30n, Ti: 2n ** 40n, Pi: 2n ** 50n, Ei: 2n ** 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

/** Quantity is an exact rational resource quantity. */
export class Quantity extends Opaque {
  readonly typeName = 'kubernetes.Quantity';
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den: bigint) {
    super();
    const g = gcd(num, den);
    this.num = num / g;
    this.den = den / g;
  }
  /** compare is -1, 0 or 1. */
  compare(other: Quantity): number {
    const l = this.num * other.den;
    const r = other.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  /** equals compares amounts. */
  equals(other: Opaque): boolean {
    return other instanceof Quantity && this.compare(other) === 0;
  }
}

/** parseQuantity reads a quantity, or throws resource.ParseQuantity's error. */
export function parseQuantity(text: string): Quantity {
  const match = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)([eEinumkKMGTP]*[-+]?\d*)$/.exec(text);
  if (match === null || text.length > 256) throw new RuleEvalError(QUANTITY_FORMAT_ERROR);
  const [, sign, number, suffix] = match as unknown as [string, string, string, string];
  const [whole, fraction = ''] = number.split('.');
  let num = BigInt(`${whole ?? ''}${fraction}` || '0');
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-') num = -num;
  if (suffix in BINARY) num *= BINARY[suffix]!;
  else if (suffix in DECIMAL) {
    const exp = DECIMAL[suffix]!;
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  } else if (/^[eE][-+]?\d+$/.test(suffix)) {
    const exp = Number(suffix.slice(1));
    if (Math.abs(exp) > 1000) throw new RuleEvalError(QUANTITY_FORMAT_ERROR);
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  } else throw new RuleEvalError(QUANTITY_FORMAT_ERROR);
  return new Quantity(num, den);
}

function q(v: Value): Quantity {
  if (!(v instanceof Quantity)) throw new RuleEvalError('no such overload');
  return v;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const m = (name: string, params: Overload['params'], result: Overload['result'], impl: Overload['impl']): Overload => ({
  name,
  member: true,
  params,
  result,
  impl,
});

/** QUANTITY_OVERLOADS are the quantity library. */
export const QUANTITY_OVERLOADS: readonly Overload[] = [
  { name: 'quantity', member: false, params: [STRING], result: QUANTITY, ...parsedAtRunTime(0), impl: (args) => parseQuantity(String(args[0])) },
  {
    name: 'isQuantity',
    member: false,
    params: [STRING],
    result: BOOL,
    ...parsedAtRunTime(0),
    impl: (args) => {
      try {
        parseQuantity(String(args[0]));
        return true;
      } catch {
        return false;
      }
    },
  },
  m('sign', [QUANTITY], INT, (args) => BigInt(Math.sign(Number(q(args[0]!).num)))),
  m('isInteger', [QUANTITY], BOOL, (args) => q(args[0]!).den === 1n && q(args[0]!).num <= INT64_MAX && q(args[0]!).num >= INT64_MIN),
  m('asInteger', [QUANTITY], INT, (args) => {
    const v = q(args[0]!);
    if (v.den !== 1n || v.num > INT64_MAX || v.num < INT64_MIN) throw new RuleEvalError('cannot convert value to integer');
    return v.num;
  }),
  m('asApproximateFloat', [QUANTITY], DOUBLE, (args) => Number(q(args[0]!).num) / Number(q(args[0]!).den)),
  m(
    'add',
    [QUANTITY, QUANTITY],
    QUANTITY,
    (args) => new Quantity(q(args[0]!).num * q(args[1]!).den + q(args[1]!).num * q(args[0]!).den, q(args[0]!).den * q(args[1]!).den),
  ),
  m('add', [QUANTITY, INT], QUANTITY, (args) => new Quantity(q(args[0]!).num + (args[1] as bigint) * q(args[0]!).den, q(args[0]!).den)),
  m(
    'sub',
    [QUANTITY, QUANTITY],
    QUANTITY,
    (args) => new Quantity(q(args[0]!).num * q(args[1]!).den - q(args[1]!).num * q(args[0]!).den, q(args[0]!).den * q(args[1]!).den),
  ),
  m('sub', [QUANTITY, INT], QUANTITY, (args) => new Quantity(q(args[0]!).num - (args[1] as bigint) * q(args[0]!).den, q(args[0]!).den)),
  m('isLessThan', [QUANTITY, QUANTITY], BOOL, (args) => q(args[0]!).compare(q(args[1]!)) < 0),
  m('isGreaterThan', [QUANTITY, QUANTITY], BOOL, (args) => q(args[0]!).compare(q(args[1]!)) > 0),
  m('compareTo', [QUANTITY, QUANTITY], INT, (args) => BigInt(q(args[0]!).compare(q(args[1]!)))),
];
