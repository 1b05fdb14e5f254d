/**
 * The declarations of the rules language, version 1 (the environment of
 * github.com/cel-expr/cloud-armor-rules `cloud-armor-v1.yaml` plus the server-only functions):
 * the attribute names with their types and every function overload. The checker in
 * `check-expression.ts` reads only these tables, so the language is described here once.
 */

/** CelType is a type of the rules language. */
export type CelType =
  | { readonly kind: 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'dyn' }
  | { readonly kind: 'list'; readonly element: CelType }
  | { readonly kind: 'map'; readonly key: CelType; readonly value: CelType };

/** T holds the scalar types and the list/map constructors, to keep the tables readable. */
export const T = {
  bool: { kind: 'bool' },
  int: { kind: 'int' },
  uint: { kind: 'uint' },
  double: { kind: 'double' },
  string: { kind: 'string' },
  bytes: { kind: 'bytes' },
  null: { kind: 'null' },
  dyn: { kind: 'dyn' },
  list: (element: CelType): CelType => ({ kind: 'list', element }),
  map: (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value }),
} as const satisfies Record<string, CelType | ((...args: CelType[]) => CelType)>;

/** formatType prints a type the way CEL checkers do: `string`, `list(string)`, `map(string, dyn)`. */
export function formatType(type: CelType): string {
  switch (type.kind) {
    case 'list':
      return `list(${formatType(type.element)})`;
    case 'map':
      return `map(${formatType(type.key)}, ${formatType(type.value)})`;
    case 'null':
      return 'null_type';
    default:
      return type.kind;
  }
}

/** ATTRIBUTES are the request attributes, declared by their qualified names as the environment does. */
export const ATTRIBUTES: ReadonlyMap<string, CelType> = new Map<string, CelType>([
  ['request.method', T.string],
  ['request.headers', T.map(T.string, T.dyn)],
  ['request.path', T.string],
  ['request.query', T.string],
  ['request.scheme', T.string],
  ['origin.ip', T.string],
  ['origin.region_code', T.string],
  ['origin.asn', T.int],
  ['origin.user_ip', T.string],
  ['origin.tls_ja3_fingerprint', T.string],
  ['origin.tls_ja4_fingerprint', T.string],
  ['token.recaptcha_exemption.valid', T.bool],
  ['token.recaptcha_action.score', T.double],
  ['token.recaptcha_action.captcha_status', T.string],
  ['token.recaptcha_action.action', T.string],
  ['token.recaptcha_action.valid', T.bool],
  ['token.recaptcha_session.score', T.double],
  ['token.recaptcha_session.valid', T.bool],
]);

/** Overload is one signature of a function: `target` is set for methods (`x.f(...)`). */
export interface Overload {
  readonly target?: CelType;
  readonly args: readonly CelType[];
  readonly result: CelType;
}

const sameTypePair = (types: readonly CelType[], result: (t: CelType) => CelType): Overload[] => types.map((t) => ({ args: [t, t], result: result(t) }));
const stringMethod = (args: readonly CelType[], result: CelType): Overload => ({ target: T.string, args, result });
const ordered = [T.int, T.double];
const equatable = [T.bool, T.double, T.int, T.string];

/**
 * FUNCTIONS are every function and operator the language declares. Operators use CEL's internal
 * names (`_&&_`); equality is declared per type because the environment disables the generic one.
 * `_[_]` is resolved structurally by the checker (list index, map key) and is listed for presence.
 */
export const FUNCTIONS: ReadonlyMap<string, readonly Overload[]> = new Map<string, readonly Overload[]>([
  ['_&&_', [{ args: [T.bool, T.bool], result: T.bool }]],
  ['_||_', [{ args: [T.bool, T.bool], result: T.bool }]],
  ['!_', [{ args: [T.bool], result: T.bool }]],
  ['_<_', sameTypePair(ordered, () => T.bool)],
  ['_<=_', sameTypePair(ordered, () => T.bool)],
  ['_>_', sameTypePair(ordered, () => T.bool)],
  ['_>=_', sameTypePair(ordered, () => T.bool)],
  ['_==_', sameTypePair(equatable, () => T.bool)],
  ['_!=_', sameTypePair(equatable, () => T.bool)],
  ['_+_', sameTypePair([T.int, T.double, T.string], (t) => t)],
  ['_-_', sameTypePair(ordered, (t) => t)],
  ['_*_', sameTypePair(ordered, (t) => t)],
  ['_[_]', []],
  ['size', [{ args: [T.string], result: T.int }, stringMethod([], T.int)]],
  [
    'int',
    [
      { args: [T.string], result: T.int },
      { args: [T.int], result: T.int },
    ],
  ],
  ['matches', [{ args: [T.string, T.string], result: T.bool }, stringMethod([T.string], T.bool)]],
  ['contains', [stringMethod([T.string], T.bool)]],
  ['startsWith', [stringMethod([T.string], T.bool)]],
  ['endsWith', [stringMethod([T.string], T.bool)]],
  ['inIpRange', [{ args: [T.string, T.string], result: T.bool }]],
  ['lower', [stringMethod([], T.string)]],
  ['upper', [stringMethod([], T.string)]],
  ['base64Decode', [stringMethod([], T.string)]],
  ['urlDecode', [stringMethod([], T.string)]],
  ['urlDecodeUni', [stringMethod([], T.string)]],
  ['utf8ToUnicode', [stringMethod([], T.string)]],
  [
    'evaluatePreconfiguredExpr',
    [
      { args: [T.string], result: T.bool },
      { args: [T.string, T.list(T.string)], result: T.bool },
    ],
  ],
  [
    'evaluatePreconfiguredWaf',
    [
      { args: [T.string], result: T.bool },
      { args: [T.string, T.map(T.string, T.dyn)], result: T.bool },
    ],
  ],
  ['evaluateThreatIntelligence', [{ args: [T.string], result: T.bool }]],
  ['evaluateAddressGroup', [{ args: [T.string, T.string], result: T.bool }]],
]);

/** ENABLED_MACROS: the environment disables every standard macro except its own `has()`. */
export const ENABLED_MACROS: ReadonlySet<string> = new Set(['has']);
