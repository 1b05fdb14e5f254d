/**
 * CEL's extended strings library at the version Kubernetes enables (`ext.Strings` version 2):
 * charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join,
 * strings.quote and format. The implementations are @bufbuild/cel's `ext` strings; this file
 * declares them and their cost as the apiserver's cost estimator prices them.
 */
import { celEnv, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { DYN, INT, listOf, STRING } from './cel-types.ts';
import { byFactor, doubleTraversal, mulCost, type Overload, STRING_TRAVERSAL_COST_FACTOR, traversal, UNKNOWN_SIZE } from './overloads.ts';
import { RuleEvalError, Opaque, type Value } from './runtime-values.ts';

const env = celEnv({ funcs: strings });

function ext(name: string): (args: readonly Value[]) => Value {
  return (args) => {
    if (args.some((a) => a instanceof Opaque)) throw new RuleEvalError('no such overload');
    const result = env.funcs.find(name)?.call(0, args[0] as CelValue, args.slice(1) as CelValue[]);
    if (result === undefined) throw new RuleEvalError('no such overload');
    if (result instanceof Error) throw new RuleEvalError(result.message);
    return result;
  };
}

function extFn(name: string): (args: readonly Value[]) => Value {
  return (args) => {
    const result = env.funcs.find(name)?.call(0, undefined, args as CelValue[]);
    if (result === undefined) throw new RuleEvalError('no such overload');
    if (result instanceof Error) throw new RuleEvalError(result.message);
    return result;
  };
}

function m(name: string, params: Overload['params'], result: Overload['result'], cost: Pick<Overload, 'estimate' | 'cost'> = traversal(0)): Overload {
  return { name, member: true, params, result, ...cost, impl: ext(name) };
}

const resultSizeOfTarget: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes) => ({ cost: byFactor(sizes[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR), resultSize: sizes[0] ?? UNKNOWN_SIZE }),
  cost: traversal(0).cost!,
};

const splitCost: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes) => ({
    cost: byFactor(sizes[0] ?? UNKNOWN_SIZE, 2 * STRING_TRAVERSAL_COST_FACTOR),
    resultSize: { min: 0, max: (sizes[0] ?? UNKNOWN_SIZE).max },
  }),
  cost: doubleTraversal().cost,
};

/** joinCost: the result's size (items times their size, plus separators) traversed, as the apiserver prices join. */
const joinCost: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes, types) => {
    const list = sizes[0] ?? UNKNOWN_SIZE;
    const elem = types[0]?.kind === 'list' ? types[0].elem : undefined;
    const elemSize = elem?.bound === undefined ? UNKNOWN_SIZE : { min: 0, max: elem.bound.maxElements };
    let size = mulCost(list, elemSize);
    const separator = sizes[1];
    if (separator !== undefined) {
      size = { min: size.min + separator.min * Math.max(0, list.min - 1), max: Math.min(2 ** 64 - 1, size.max + separator.max * Math.max(0, list.max - 1)) };
    }
    return { cost: byFactor(size, STRING_TRAVERSAL_COST_FACTOR), resultSize: size };
  },
  cost: (args) => {
    const parts = [...(args[0] as Iterable<unknown>)].map(String);
    const separator = typeof args[1] === 'string' ? args[1] : '';
    return Math.ceil(parts.join(separator).length * 2 * STRING_TRAVERSAL_COST_FACTOR);
  },
};

/** STRINGS_OVERLOADS are the extended string functions. */
export const STRINGS_OVERLOADS: readonly Overload[] = [
  m('charAt', [STRING, INT], STRING),
  m('indexOf', [STRING, STRING], INT),
  m('indexOf', [STRING, STRING, INT], INT),
  m('lastIndexOf', [STRING, STRING], INT),
  m('lastIndexOf', [STRING, STRING, INT], INT),
  m('lowerAscii', [STRING], STRING, resultSizeOfTarget),
  m('upperAscii', [STRING], STRING, resultSizeOfTarget),
  m('replace', [STRING, STRING, STRING], STRING, doubleTraversal()),
  m('replace', [STRING, STRING, STRING, INT], STRING, doubleTraversal()),
  m('split', [STRING, STRING], listOf(STRING), splitCost),
  m('split', [STRING, STRING, INT], listOf(STRING), splitCost),
  m('substring', [STRING, INT], STRING, resultSizeOfTarget),
  m('substring', [STRING, INT, INT], STRING, resultSizeOfTarget),
  m('trim', [STRING], STRING, resultSizeOfTarget),
  m('join', [listOf(STRING)], STRING, joinCost),
  m('join', [listOf(STRING), STRING], STRING, joinCost),
  m('format', [STRING, listOf(DYN)], STRING),
  { name: 'strings.quote', member: false, params: [STRING], result: STRING, ...traversal(0), impl: extFn('strings.quote') },
];
