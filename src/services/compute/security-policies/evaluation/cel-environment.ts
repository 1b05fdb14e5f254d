import { CelScalar, celEnv, celFunc, celMethod, isCelMap, listType, mapType, type CelEnv, type CelFunc, type CelType as RuntimeType } from '@bufbuild/cel';
import { BoundedMap } from '../../../../lib/bounded-map.ts';
import { RE2JS } from 're2js';
import { ATTRIBUTES, FUNCTIONS, type CelType, type Overload } from '../rules-language.ts';
import { inRange, parseIp, parseIpRange } from './ip-match.ts';
import { base64Decode, lowerAscii, upperAscii, urlDecode, urlDecodeUni, utf8ToUnicode } from './string-functions.ts';
import { noteOnTrace, UNEVALUATED_FUNCTIONS, unevaluatedCall, WAF_CALL, wafCallResult } from './unevaluated-calls.ts';

/**
 * The run-time environment of the rules language for `@bufbuild/cel`: the attributes and the
 * function signatures come from the declarations in `rules-language.ts` (the same tables the
 * API's checker reads), and each declared function that CEL's standard library does not provide
 * gets its Cloud Armor implementation here. Operators, `size`, `contains`, `startsWith` and
 * `endsWith` are CEL's own.
 */

/** HAS_KEY is the function `has(m['k'])` is rewritten to: Cloud Armor's `has` macro tests map keys, which CEL's does not. */
export const HAS_KEY = '@armor_has_key';

type Impl = (target: unknown, args: readonly unknown[]) => unknown;

/** RuntimeError is a run-time failure of a function, reported as the expression's evaluation error. */
class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
}

// Bounded: expressions come from users; one compiled program per distinct pattern.
const patterns = new BoundedMap<string, RE2JS>(1024);

/** partialMatch is RE2's PartialMatch: `matches` searches, it does not anchor. */
function partialMatch(text: string, pattern: string): boolean {
  let compiled = patterns.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      throw new RuntimeError(`invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
    }
    patterns.set(pattern, compiled);
  }
  return compiled.test(text);
}

function ipRangeCheck(ip: string, range: string): boolean {
  const address = parseIp(ip);
  if (address === undefined) throw new RuntimeError(`invalid IP address: ${ip}`);
  const parsed = range === '*' ? undefined : parseIpRange(range);
  if (parsed === undefined) throw new RuntimeError(`invalid IP range: ${range}`);
  return inRange(address, parsed);
}

const str = (value: unknown): string => String(value);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** toInt is CEL's int(): decimal digits with an optional sign, within int64 (no spaces, no hex, unlike BigInt()). */
function toInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  const text = str(value);
  if (!/^[+-]?\d+$/.test(text)) throw new RuntimeError(`cannot convert ${JSON.stringify(text)} to int`);
  const parsed = BigInt(text);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw new RuntimeError(`cannot convert ${JSON.stringify(text)} to int: out of range`);
  return parsed;
}

/** IMPLEMENTATIONS are the functions this module supplies, by name; `target` is set for methods. */
const IMPLEMENTATIONS: ReadonlyMap<string, Impl> = new Map<string, Impl>([
  ['inIpRange', (_target, [ip, range]) => ipRangeCheck(str(ip), str(range))],
  ['int', (_target, [value]) => toInt(value)],
  ['matches', (target, args) => (target === undefined ? partialMatch(str(args[0]), str(args[1])) : partialMatch(str(target), str(args[0])))],
  ['lower', (target) => lowerAscii(str(target))],
  ['upper', (target) => upperAscii(str(target))],
  [
    'base64Decode',
    (target) => {
      const text = str(target);
      const decoded = base64Decode(text);
      if (decoded === '' && text !== '')
        noteOnTrace(`base64Decode: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} is not valid base64, read as ""`);
      return decoded;
    },
  ],
  ['urlDecode', (target) => urlDecode(str(target))],
  ['urlDecodeUni', (target) => urlDecodeUni(str(target))],
  ['utf8ToUnicode', (target) => utf8ToUnicode(str(target))],
  ...UNEVALUATED_FUNCTIONS.map((name): [string, Impl] => [name, (_target, args) => unevaluatedCall(name, str(args[0]))]),
]);

/** STANDARD_FUNCTIONS are the declared names CEL's standard library evaluates as Cloud Armor does. */
export const STANDARD_FUNCTIONS: ReadonlySet<string> = new Set(['size', 'contains', 'startsWith', 'endsWith']);

function runtimeType(type: CelType): RuntimeType {
  switch (type.kind) {
    case 'bool':
      return CelScalar.BOOL;
    case 'int':
      return CelScalar.INT;
    case 'uint':
      return CelScalar.UINT;
    case 'double':
      return CelScalar.DOUBLE;
    case 'string':
      return CelScalar.STRING;
    case 'bytes':
      return CelScalar.BYTES;
    case 'null':
      return CelScalar.NULL;
    case 'dyn':
      return CelScalar.DYN;
    case 'list':
      return listType(runtimeType(type.element));
    case 'map':
      return mapType(runtimeType(type.key) as typeof CelScalar.STRING, runtimeType(type.value));
  }
}

function binding(name: string, overload: Overload, impl: Impl): CelFunc {
  const args = overload.args.map(runtimeType);
  const result = runtimeType(overload.result);
  const call = (target: unknown, values: readonly unknown[]): never => {
    // A thrown Error becomes the CelError of the call; CEL's && and || absorb it where they can.
    return impl(target, values) as never;
  };
  if (overload.target === undefined) return celFunc(name, args, result, (...values: unknown[]) => call(undefined, values));
  return celMethod(name, runtimeType(overload.target), args, result, function (this: unknown, ...values: unknown[]) {
    return call(this, values);
  });
}

function functions(): CelFunc[] {
  const funcs: CelFunc[] = [];
  for (const [name, overloads] of FUNCTIONS) {
    const impl = IMPLEMENTATIONS.get(name);
    if (impl === undefined) continue;
    for (const overload of overloads) funcs.push(binding(name, overload, impl));
  }
  funcs.push(celFunc(WAF_CALL, [CelScalar.STRING], CelScalar.BOOL, (key) => wafCallResult(String(key))));
  funcs.push(celFunc(HAS_KEY, [mapType(CelScalar.STRING, CelScalar.DYN), CelScalar.STRING], CelScalar.BOOL, (map, key) => isCelMap(map) && map.has(key)));
  return funcs;
}

/** IMPLEMENTED_FUNCTIONS are the declared names this module implements (for the completeness test). */
export const IMPLEMENTED_FUNCTIONS: ReadonlySet<string> = new Set(IMPLEMENTATIONS.keys());

let environment: CelEnv | undefined;

/** armorEnvironment is the one shared run-time environment (built on first use). */
export function armorEnvironment(): CelEnv {
  environment ??= celEnv({
    variables: Object.fromEntries([...ATTRIBUTES].map(([name, type]) => [name, runtimeType(type)])),
    funcs: functions(),
  });
  return environment;
}
