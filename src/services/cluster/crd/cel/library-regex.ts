/**
 * Regular expressions with RE2 semantics in linear time (re2js): `matches` and the Kubernetes
 * `regex` library (find, findAll). A pattern comes from a CRD author, so catastrophic
 * backtracking is impossible by construction; compiled patterns are cached (bounded).
 */
import { celList } from '@bufbuild/cel';
import { RE2JS } from 're2js';
import { BoundedMap } from '../../../../lib/bounded-map.ts';
import { BOOL, INT, listOf, STRING } from './cel-types.ts';
import { byFactor, mulCost, type Overload, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, UNKNOWN_SIZE, addCost, fixed } from './overloads.ts';
import { RuleEvalError, valueSize } from './runtime-values.ts';

const compiled = new BoundedMap<string, RE2JS>(1024);

/** compileRegex compiles an RE2 pattern, or throws the error CEL reports. */
export function compileRegex(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (error) {
      throw new RuleEvalError(`error parsing regexp: ${error instanceof Error ? error.message : String(error)}`);
    }
    compiled.set(pattern, re);
  }
  return re;
}

const regexCost: Pick<Overload, 'estimate' | 'cost'> = {
  estimate: (sizes) => ({
    cost: mulCost(
      byFactor(addCost(sizes[0] ?? UNKNOWN_SIZE, fixed(1)), STRING_TRAVERSAL_COST_FACTOR),
      byFactor(sizes[1] ?? UNKNOWN_SIZE, REGEX_STRING_LENGTH_COST_FACTOR),
    ),
  }),
  cost: (args) => Math.ceil((valueSize(args[0]!) + 1) * STRING_TRAVERSAL_COST_FACTOR) * Math.ceil(valueSize(args[1]!) * REGEX_STRING_LENGTH_COST_FACTOR),
};

function findAll(text: string, pattern: string, limit: number): string[] {
  const matcher = compileRegex(pattern).matcher(text);
  const found: string[] = [];
  while ((limit < 0 || found.length < limit) && matcher.find()) {
    found.push(matcher.group() ?? '');
    if (found.length > text.length + 1) break;
  }
  return found;
}

/** REGEX_OVERLOADS are `matches` (RE2) and the `regex` library. */
export const REGEX_OVERLOADS: readonly Overload[] = [
  {
    name: 'matches',
    member: true,
    params: [STRING, STRING],
    result: BOOL,
    ...regexCost,
    impl: (args) => compileRegex(String(args[1])).matcher(String(args[0])).find(),
  },
  {
    name: 'matches',
    member: false,
    params: [STRING, STRING],
    result: BOOL,
    ...regexCost,
    impl: (args) => compileRegex(String(args[1])).matcher(String(args[0])).find(),
  },
  {
    name: 'find',
    member: true,
    params: [STRING, STRING],
    result: STRING,
    ...regexCost,
    impl: (args) => {
      const matcher = compileRegex(String(args[1])).matcher(String(args[0]));
      return matcher.find() ? (matcher.group() ?? '') : '';
    },
  },
  {
    name: 'findAll',
    member: true,
    params: [STRING, STRING],
    result: listOf(STRING),
    ...regexCost,
    impl: (args) => celList(findAll(String(args[0]), String(args[1]), -1)),
  },
  {
    name: 'findAll',
    member: true,
    params: [STRING, STRING, INT],
    result: listOf(STRING),
    ...regexCost,
    impl: (args) => celList(findAll(String(args[0]), String(args[1]), Number(args[2] as bigint))),
  },
];
