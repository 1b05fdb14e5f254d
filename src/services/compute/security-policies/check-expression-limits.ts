import type { Expr } from './check-expression.ts';

/**
 * The rules language's parser limits, as CEL's reference parser (cel-go, which Cloud Armor's own
 * rules tooling builds on) enforces them by default: at most 100,000 code points, and a recursion
 * depth of 250, counted two ways — per grammar rule while parsing (`expression recursion limit
 * exceeded: 250`) and over the operator nodes while building the tree (`max recursion depth
 * exceeded`). CEL reports both with no source position (`<input>:-1:0:`). Checking them first is
 * also what keeps the recursive parser and checker here from overflowing the stack on hostile
 * input (3,000 chained calls, 40,000 nested parentheses).
 */

/** EXPRESSION_CODE_POINT_LIMIT is CEL's default expressionSizeCodePointLimit. */
export const EXPRESSION_CODE_POINT_LIMIT = 100_000;
/** EXPRESSION_RECURSION_LIMIT is CEL's default maxRecursionDepth. */
export const EXPRESSION_RECURSION_LIMIT = 250;

const NO_LOCATION = '<input>:-1:0';

/** sourceLimitProblem checks the text before parsing: its size, and how deeply brackets nest (each level is a nested `expr` rule). */
export function sourceLimitProblem(text: string): string | undefined {
  let codePoints = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair is one code point.
    if (unit < 0xdc00 || unit > 0xdfff || i === 0 || text.charCodeAt(i - 1) < 0xd800 || text.charCodeAt(i - 1) > 0xdbff) codePoints++;
  }
  if (codePoints > EXPRESSION_CODE_POINT_LIMIT) {
    return `${NO_LOCATION}: expression code point size exceeds limit: size: ${codePoints}, limit ${EXPRESSION_CODE_POINT_LIMIT}`;
  }
  return bracketDepth(text) + 1 > EXPRESSION_RECURSION_LIMIT ? ruleLimit() : undefined;
}

/**
 * treeLimitProblem checks the parsed tree. Per path from the root it counts the nesting of
 * arguments, elements and entries (B), member operations — selections, method calls and indexing
 * (M) —, arithmetic (C) and relations (R): the parser's rule depth for `member`, `calc` and
 * `relation` is B + M, B + C and B + R plus one; its visitor depth is M + C + R.
 */
export function treeLimitProblem(root: Expr): string | undefined {
  type Frame = { readonly expr: Expr; readonly b: number; readonly m: number; readonly c: number; readonly r: number };
  const stack: Frame[] = [{ expr: root, b: 0, m: 0, c: 0, r: 0 }];
  let visitorExceeded = false;
  while (stack.length > 0) {
    const { expr, b, m, c, r } = stack.pop()!;
    if (Math.max(b + m, b + c, b + r) + 1 > EXPRESSION_RECURSION_LIMIT) return ruleLimit();
    if (m + c + r > EXPRESSION_RECURSION_LIMIT) visitorExceeded = true;
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'selectExpr':
        if (kind.value.operand !== undefined) stack.push({ expr: kind.value.operand, b, m: m + 1, c, r });
        break;
      case 'callExpr': {
        const name = kind.value.function;
        const member = kind.value.target !== undefined || name === '_[_]';
        const next = { b, m: m + (member ? 1 : 0), c: c + (CALC.has(name) ? 1 : 0), r: r + (RELATION.has(name) ? 1 : 0) };
        if (kind.value.target !== undefined) stack.push({ expr: kind.value.target, ...next });
        // Operands of operators stay in the same rule; arguments of calls and the index are nested `expr`s.
        const nests = !OPERATORS.has(name);
        for (const [i, arg] of kind.value.args.entries()) stack.push({ expr: arg, ...next, b: next.b + (nests || (name === '_[_]' && i === 1) ? 1 : 0) });
        break;
      }
      case 'listExpr':
        for (const element of kind.value.elements) stack.push({ expr: element, b: b + 1, m, c, r });
        break;
      case 'structExpr':
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') stack.push({ expr: entry.keyKind.value, b: b + 1, m, c, r });
          if (entry.value !== undefined) stack.push({ expr: entry.value, b: b + 1, m, c, r });
        }
        break;
      default:
        break;
    }
  }
  return visitorExceeded ? `${NO_LOCATION}: max recursion depth exceeded` : undefined;
}

const CALC: ReadonlySet<string> = new Set(['_+_', '_-_', '_*_', '_/_', '_%_']);
const RELATION: ReadonlySet<string> = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '@in']);
const OPERATORS: ReadonlySet<string> = new Set([...CALC, ...RELATION, '_&&_', '_||_', '!_', '-_', '_?_:_', '_[_]']);

function ruleLimit(): string {
  return `${NO_LOCATION}: expression recursion limit exceeded: ${EXPRESSION_RECURSION_LIMIT}`;
}

/** bracketDepth is the deepest nesting of (), [] and {} outside string literals. */
function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      i = stringEnd(text, i);
    } else if (ch === '(' || ch === '[' || ch === '{') {
      deepest = Math.max(deepest, ++depth);
    } else if (ch === ')' || ch === ']' || ch === '}') {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** stringEnd is the index of the quote closing the CEL string literal opened at `start` (triple quotes included). */
function stringEnd(text: string, start: number): number {
  const quote = text[start]!;
  const raw = start > 0 && /[rR]/.test(text[start - 1]!);
  const closing = text.startsWith(quote.repeat(3), start) ? quote.repeat(3) : quote;
  for (let i = start + closing.length; i < text.length; i++) {
    if (text[i] === '\\' && !raw) i++;
    else if (text.startsWith(closing, i)) return i + closing.length - 1;
  }
  return text.length;
}
