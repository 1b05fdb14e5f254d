/**
 * The parsed-expression shapes of @bufbuild/cel (its protobuf `cel.expr.Expr`), named here without
 * importing the spec package, plus parsing with the limits a rule gets (length, nesting) and the
 * error texts cel-go prints (`ERROR: <input>:1:6: … | self.foo | .....^`).
 */
import { parse } from '@bufbuild/cel';
import { rewriteOptionalSyntax } from './optional-syntax.ts';

/** ParsedExpr is a parsed rule. */
export type ParsedExpr = ReturnType<typeof parse>;
/** Expr is one node of a parsed rule. */
export type Expr = NonNullable<ParsedExpr['expr']>;
/** Call is a function call node. */
export type Call = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];
/** Comprehension is a macro's loop node. */
export type Comprehension = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];

/** MAX_EXPRESSION_LENGTH is cel-go's default expression size limit in code points. */
export const MAX_EXPRESSION_LENGTH = 100_000;
/** MAX_NESTING is cel-go's parser recursion limit, here on bracket/call nesting, so the recursive parser and checker cannot overflow the stack. */
export const MAX_NESTING = 250;

/** Source locates expression ids in a rule's text for error messages. */
export class Source {
  constructor(
    readonly text: string,
    private readonly positions: Record<string, number>,
  ) {}
  /** error prints one cel-go style issue at an expression id. */
  error(id: bigint | number, message: string): string {
    const offset = this.positions[String(id)] ?? 0;
    return this.errorAt(offset, message);
  }
  /** errorAt prints one cel-go style issue at a character offset. */
  errorAt(offset: number, message: string): string {
    const before = this.text.slice(0, offset);
    const line = before.split('\n').length;
    const lineStart = before.lastIndexOf('\n') + 1;
    const column = offset - lineStart;
    const lineText = this.text.split('\n')[line - 1] ?? '';
    return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${lineText}\n | ${'.'.repeat(column)}^`;
  }
}

function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max;
}

/** parseRule parses a rule's text, or returns the syntax error as cel-go's issues print it. */
export function parseRule(text: string): { parsed: ParsedExpr; source: Source } | { error: string } {
  const empty = new Source(text, {});
  const codePoints = [...text].length;
  if (codePoints > MAX_EXPRESSION_LENGTH) {
    return { error: empty.errorAt(0, `expression code point size exceeds limit: size: ${codePoints}, limit ${MAX_EXPRESSION_LENGTH}`) };
  }
  if (nestingDepth(text) > MAX_NESTING) return { error: empty.errorAt(0, 'max recursion depth exceeded') };
  try {
    const source = rewriteOptionalSyntax(text);
    const parsed = parse(source);
    return { parsed, source: new Source(source, (parsed.sourceInfo?.positions ?? {}) as Record<string, number>) };
  } catch (error) {
    if (error instanceof RangeError) return { error: empty.errorAt(0, 'max recursion depth exceeded') };
    const location = (error as { location?: { start?: { offset?: number } } }).location?.start?.offset ?? 0;
    const raw = (error as { rawMessage?: string }).rawMessage ?? (error instanceof Error ? error.message : String(error));
    return { error: empty.errorAt(location, `Syntax error: ${raw}`) };
  }
}
