import type { Expr } from '../check-expression.ts';
import { HAS_KEY } from './cel-environment.ts';
import { inRange, parseIp, parseIpRange, type IpRange } from './ip-match.ts';
import type { RequestView } from './request-view.ts';
import { lowerAscii, upperAscii } from './string-functions.ts';

/**
 * The common shapes of rule expressions compiled to plain JavaScript closures over the request
 * view, so a proxy evaluating a hundred rules per request skips the CEL runtime (and building its
 * bindings) for them: string attributes, `request.headers['k']`, `has(request.headers['k'])`,
 * string literals, `==` / `!=`, `!`, `&&` / `||` with CEL's error-absorbing rules, `startsWith`,
 * `endsWith`, `contains`, `lower`, `upper`, and `inIpRange(x, 'literal range')`. Anything else
 * (another function, a non-literal range, a bad literal range) leaves the expression to the CEL
 * runtime. A run-time error (a missing header) makes the closure answer undefined: the caller then
 * runs the CEL runtime, which reports the error in its own words, so results never differ.
 */

/** FastExpression decides an expression for a request: true or false, or undefined when the CEL runtime must (an error). */
export type FastExpression = (view: RequestView) => boolean | undefined;

/** FAIL is a run-time error inside a fast closure. */
const FAIL: unique symbol = Symbol('fail');
type Value = string | boolean | typeof FAIL;
type Node = { readonly type: 'string' | 'bool'; readonly run: (view: RequestView) => Value };

/** STRING_ATTRIBUTES read the string attributes from the view exactly as attributesOf binds them. */
const STRING_ATTRIBUTES: ReadonlyMap<string, (view: RequestView) => string> = new Map<string, (view: RequestView) => string>([
  ['request.method', (view) => view.request.method],
  ['request.path', (view) => view.path],
  ['request.query', (view) => view.query],
  ['request.scheme', (view) => view.scheme],
  ['origin.ip', (view) => view.originIp],
  ['origin.region_code', (view) => view.request.regionCode ?? ''],
  ['origin.user_ip', (view) => view.userIp],
  ['origin.tls_ja3_fingerprint', (view) => view.request.tlsJa3Fingerprint ?? ''],
  ['origin.tls_ja4_fingerprint', (view) => view.request.tlsJa4Fingerprint ?? ''],
]);

/** fastExpression compiles `root` (after the `has` rewrite) to a closure, or returns undefined when it has a shape not covered here. */
export function fastExpression(root: Expr): FastExpression | undefined {
  const node = compile(root);
  if (node === undefined || node.type !== 'bool') return undefined;
  const run = node.run;
  return (view) => {
    const value = run(view);
    return value === FAIL ? undefined : (value as boolean);
  };
}

/** attributeName is `request.path` for the tree of `request.path`, or undefined. */
function attributeName(expr: Expr): string | undefined {
  const kind = expr.exprKind;
  if (kind.case !== 'selectExpr' || kind.value.testOnly) return undefined;
  const operand = kind.value.operand?.exprKind;
  if (operand?.case !== 'identExpr') return undefined;
  return `${operand.value.name}.${kind.value.field}`;
}

function stringConstant(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  if (kind?.case !== 'constExpr' || kind.value.constantKind.case !== 'stringValue') return undefined;
  return kind.value.constantKind.value;
}

function compile(expr: Expr): Node | undefined {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'constExpr': {
      const constant = kind.value.constantKind;
      if (constant.case === 'stringValue') {
        const value = constant.value;
        return { type: 'string', run: () => value };
      }
      if (constant.case === 'boolValue') {
        const value = constant.value;
        return { type: 'bool', run: () => value };
      }
      return undefined;
    }
    case 'selectExpr': {
      const name = attributeName(expr);
      const read = name === undefined ? undefined : STRING_ATTRIBUTES.get(name);
      return read === undefined ? undefined : { type: 'string', run: read };
    }
    case 'callExpr':
      return compileCall(kind.value.function, kind.value.target, kind.value.args);
    default:
      return undefined;
  }
}

function compileCall(fn: string, target: Expr | undefined, args: readonly Expr[]): Node | undefined {
  if (target === undefined) return compileGlobal(fn, args);
  const receiver = compile(target);
  if (receiver === undefined || receiver.type !== 'string') return undefined;
  const self = receiver.run;
  if ((fn === 'lower' || fn === 'upper') && args.length === 0) {
    const convert = fn === 'lower' ? lowerAscii : upperAscii;
    return {
      type: 'string',
      run: (view) => {
        const value = self(view);
        return value === FAIL ? FAIL : convert(value as string);
      },
    };
  }
  if ((fn === 'startsWith' || fn === 'endsWith' || fn === 'contains') && args.length === 1) {
    const argument = compile(args[0]!);
    if (argument === undefined || argument.type !== 'string') return undefined;
    const other = argument.run;
    const test =
      fn === 'startsWith'
        ? (a: string, b: string): boolean => a.startsWith(b)
        : fn === 'endsWith'
          ? (a: string, b: string): boolean => a.endsWith(b)
          : (a: string, b: string): boolean => a.includes(b);
    return {
      type: 'bool',
      run: (view) => {
        const value = self(view);
        if (value === FAIL) return FAIL;
        const with_ = other(view);
        return with_ === FAIL ? FAIL : test(value as string, with_ as string);
      },
    };
  }
  return undefined;
}

function compileGlobal(fn: string, args: readonly Expr[]): Node | undefined {
  switch (fn) {
    case '_&&_':
    case '_||_': {
      const operands = args.map(compile);
      if (operands.length !== 2 || operands.some((operand) => operand === undefined || operand.type !== 'bool')) return undefined;
      const left = operands[0]!.run;
      const right = operands[1]!.run;
      // CEL: a decisive operand (false for &&, true for ||) wins over an error on the other side.
      const decisive = fn === '_||_';
      return {
        type: 'bool',
        run: (view) => {
          const a = left(view);
          if (a === decisive) return decisive;
          const b = right(view);
          if (b === decisive) return decisive;
          return a === FAIL || b === FAIL ? FAIL : !decisive;
        },
      };
    }
    case '!_': {
      const operand = args.length === 1 ? compile(args[0]!) : undefined;
      if (operand === undefined || operand.type !== 'bool') return undefined;
      const run = operand.run;
      return {
        type: 'bool',
        run: (view) => {
          const value = run(view);
          return value === FAIL ? FAIL : !value;
        },
      };
    }
    case '_==_':
    case '_!=_': {
      const operands = args.map(compile);
      if (operands.length !== 2 || operands[0] === undefined || operands[1] === undefined || operands[0].type !== operands[1].type) return undefined;
      const left = operands[0].run;
      const right = operands[1].run;
      const equal = fn === '_==_';
      return {
        type: 'bool',
        run: (view) => {
          const a = left(view);
          if (a === FAIL) return FAIL;
          const b = right(view);
          return b === FAIL ? FAIL : (a === b) === equal;
        },
      };
    }
    case '_[_]': {
      // request.headers['name']: a missing key is an error (the CEL runtime words it).
      const key = stringConstant(args[1]);
      if (args.length !== 2 || key === undefined || attributeName(args[0]!) !== 'request.headers') return undefined;
      return { type: 'string', run: (view) => view.headers.get(key) ?? FAIL };
    }
    case HAS_KEY: {
      const key = stringConstant(args[1]);
      if (args.length !== 2 || key === undefined || attributeName(args[0]!) !== 'request.headers') return undefined;
      return { type: 'bool', run: (view) => view.headers.has(key) };
    }
    case 'inIpRange': {
      const rangeText = stringConstant(args[1]);
      // `*` and unreadable ranges are errors at run time: the CEL runtime reports them.
      const range: IpRange | undefined = rangeText === undefined || rangeText === '*' ? undefined : parseIpRange(rangeText);
      const address = args.length === 2 ? compile(args[0]!) : undefined;
      if (range === undefined || address === undefined || address.type !== 'string') return undefined;
      if (attributeName(args[0]!) === 'origin.ip') return { type: 'bool', run: (view) => inRange(view.originAddress, range) };
      const run = address.run;
      return {
        type: 'bool',
        run: (view) => {
          const text = run(view);
          const parsed = text === FAIL ? undefined : parseIp(text as string);
          return parsed === undefined ? FAIL : inRange(parsed, range);
        },
      };
    }
    default:
      return undefined;
  }
}
