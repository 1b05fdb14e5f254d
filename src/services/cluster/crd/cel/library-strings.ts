/**
 * CEL's extended strings library at the version Kubernetes enables (`ext.Strings` version 2):
 * charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join,
 * strings.quote and format. The implementations are @bufbuild/cel's `ext` strings; this file
 * declares them and their cost as the apiserver's cost estimator prices them.
 */
import { celEnv, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { DYN, INT, listOf, STRING } from './cel-types.ts';
import { byFactor, type Overload, STRING_TRAVERSAL_COST_FACTOR, traversal, UNKNOWN_SIZE } from './overloads.ts';
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

/** STRINGS_OVERLOADS are the extended string functions. */
export const STRINGS_OVERLOADS: readonly Overload[] = [
  m('charAt', [STRING, INT], STRING),
  m('indexOf', [STRING, STRING], INT),
  m('indexOf', [STRING, STRING, INT], INT),
  m('lastIndexOf', [STRING, STRING], INT),
  m('lastIndexOf', [STRING, STRING, INT], INT),
  m('lowerAscii', [STRING], STRING, resultSizeOfTarget),
  m('upperAscii', [STRING], STRING, resultSizeOfTarget),
  m('replace', [STRING, STRING, STRING], STRING),
  m('replace', [STRING, STRING, STRING, INT], STRING),
  m('split', [STRING, STRING], listOf(STRING)),
  m('split', [STRING, STRING, INT], listOf(STRING)),
  m('substring', [STRING, INT], STRING, resultSizeOfTarget),
  m('substring', [STRING, INT, INT], STRING, resultSizeOfTarget),
  m('trim', [STRING], STRING, resultSizeOfTarget),
  m('join', [listOf(STRING)], STRING),
  m('join', [listOf(STRING), STRING], STRING),
  m('format', [STRING, listOf(DYN)], STRING),
  { name: 'strings.quote', member: false, params: [STRING], result: STRING, ...traversal(0), impl: extFn('strings.quote') },
];
