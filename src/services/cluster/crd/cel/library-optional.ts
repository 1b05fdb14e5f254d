/**
 * CEL optional types (`optional.of`, `optional.ofNonZeroValue`, `optional.none`, `hasValue`,
 * `value`, `orValue`, `or`), which Kubernetes enables; `oldSelf` is an optional in rules with
 * `optionalOldSelf: true`. The `.?field` and `[?key]` syntax reads through `optSelect`/`optIndex`.
 */
import { isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import { BOOL, type CelT, DYN, opaque } from './cel-types.ts';
import { type Overload, PARAM_A } from './overloads.ts';
import { RuleEvalError, NONE, Optional, type Value, valueSize } from './runtime-values.ts';

/** optionalOf is `optional_type(t)`. */
export function optionalOf(t: CelT): CelT {
  return opaque('optional_type', t);
}

function opt(v: Value): Optional {
  if (!(v instanceof Optional)) throw new RuleEvalError('no such overload');
  return v;
}

function isZero(v: Value): boolean {
  if (v === null || v === false || v === 0 || v === 0n || v === '') return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array || isCelList(v) || isCelMap(v)) return valueSize(v) === 0;
  return false;
}

/** OPTIONAL_OVERLOADS are the optional library. */
export const OPTIONAL_OVERLOADS: readonly Overload[] = [
  { name: 'optional.of', member: false, params: [PARAM_A], result: optionalOf(PARAM_A), impl: (args) => new Optional(args[0]!) },
  {
    name: 'optional.ofNonZeroValue',
    member: false,
    params: [PARAM_A],
    result: optionalOf(PARAM_A),
    impl: (args) => (isZero(args[0]!) ? NONE : new Optional(args[0]!)),
  },
  { name: 'optional.none', member: false, params: [], result: optionalOf(DYN), impl: () => NONE },
  { name: 'hasValue', member: true, params: [optionalOf(PARAM_A)], result: BOOL, impl: (args) => opt(args[0]!).value !== undefined },
  {
    name: 'value',
    member: true,
    params: [optionalOf(PARAM_A)],
    result: PARAM_A,
    impl: (args) => {
      const v = opt(args[0]!).value;
      if (v === undefined) throw new RuleEvalError('optional.none() dereference');
      return v;
    },
  },
  { name: 'orValue', member: true, params: [optionalOf(PARAM_A), PARAM_A], result: PARAM_A, impl: (args) => opt(args[0]!).value ?? args[1]! },
  {
    name: 'or',
    member: true,
    params: [optionalOf(PARAM_A), optionalOf(PARAM_A)],
    result: optionalOf(PARAM_A),
    impl: (args) => (opt(args[0]!).value !== undefined ? args[0]! : args[1]!),
  },
];
