/**
 * The parser of client-go's JSONPath templates (`k8s.io/client-go/util/jsonpath`), the dialect
 * of kubectl's `-o jsonpath` and of CRD `additionalPrinterColumns`: text with `{…}` actions made
 * of fields (`.spec.x`, `['a.b']`), indexes and slices (`[0]`, `[-1]`, `[1:3:2]`, `[*]`),
 * unions (`[0,2]`), recursive descent (`..name`), wildcards (`.*`), filters
 * (`[?(@.type=="Ready")]`), quoted text, numbers, booleans and `range`/`end`. The error texts are
 * client-go's.
 */

/** JsonPathError is a template that does not parse or does not evaluate, worded as client-go words it. */
export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

/** SliceParam is one of the three `[start:end:step]` numbers, `known` when written (or derived). */
export interface SliceParam {
  value: number;
  known: boolean;
  derived: boolean;
}

/** JsonPathNode is one parsed element of an action. */
export type JsonPathNode =
  | { readonly type: 'list'; readonly nodes: JsonPathNode[] }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'array'; readonly params: readonly [SliceParam, SliceParam, SliceParam] }
  | { readonly type: 'filter'; readonly left: JsonPathList; readonly right: JsonPathList; readonly operator: string }
  | { readonly type: 'int'; readonly value: number }
  | { readonly type: 'float'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'wildcard' }
  | { readonly type: 'recursive' }
  | { readonly type: 'union'; readonly nodes: readonly JsonPathList[] }
  | { readonly type: 'identifier'; readonly name: string };

/** JsonPathList is a sequence of nodes (an action, or the whole template). */
export type JsonPathList = Extract<JsonPathNode, { type: 'list' }>;

const EOF = '';
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/s;
/** Actions nest only through unions and filters; a bound keeps hostile templates from exhausting the stack. */
const MAX_DEPTH = 64;

/** parseJsonPath parses a whole template (text and `{…}` actions) into its root list. */
export function parseJsonPath(text: string): JsonPathList {
  return new Parser(text, 0).parse();
}

class Parser {
  private readonly root: JsonPathList = { type: 'list', nodes: [] };
  private pos = 0;
  private start = 0;
  private width = 0;

  constructor(
    private readonly input: string,
    private readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new JsonPathError('template nested too deeply');
  }

  parse(): JsonPathList {
    this.parseText(this.root);
    return this.root;
  }

  private consume(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const code = this.input.codePointAt(this.pos)!;
    const char = String.fromCodePoint(code);
    this.width = char.length;
    this.pos += this.width;
    return char;
  }

  private peek(): string {
    const char = this.next();
    this.backup();
    return char;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private parseText(cur: JsonPathList): void {
    // Iterative rather than mutually recursive: a long template of many actions must not grow the stack.
    for (;;) {
      for (;;) {
        if (this.input.startsWith('{', this.pos)) break;
        if (this.next() === EOF) {
          if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consume() });
          return;
        }
      }
      if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consume() });
      this.pos += 1;
      this.consume();
      const action: JsonPathList = { type: 'list', nodes: [] };
      cur.nodes.push(action);
      this.parseInsideAction(action);
      cur = this.root;
    }
  }

  /** parseInsideAction reads one action up to its `}` (consumed). */
  private parseInsideAction(cur: JsonPathList): void {
    for (;;) {
      if (this.input.startsWith('}', this.pos)) {
        this.pos += 1;
        this.consume();
        return;
      }
      if (this.input.startsWith('[?(', this.pos)) {
        this.parseFilter(cur);
        continue;
      }
      if (this.input.startsWith('..', this.pos)) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || r === '\r' || r === '\n') throw new JsonPathError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.consume();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new JsonPathError(`unrecognized character in action: ${goUnicode(r)}`);
    }
  }

  private parseIdentifier(cur: JsonPathList): void {
    for (;;) {
      if (isTerminator(this.next())) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === 'true' || value === 'false') cur.nodes.push({ type: 'bool', value: value === 'true' });
    else cur.nodes.push({ type: 'identifier', name: value });
  }

  private parseRecursive(cur: JsonPathList): void {
    if (cur.nodes.at(-1)?.type === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    cur.nodes.push({ type: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JsonPathList): void {
    const first = this.peek();
    if (first === '+' || first === '-') this.next();
    for (;;) {
      const r = this.next();
      if (r !== '.' && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?\d+$/.test(value) && Number.isSafeInteger(Number(value))) {
      cur.nodes.push({ type: 'int', value: Number(value) });
      return;
    }
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) {
      cur.nodes.push({ type: 'float', value: Number(value) });
      return;
    }
    throw new JsonPathError(`cannot parse number ${value}`);
  }

  private parseArray(cur: JsonPathList): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathError('unterminated array');
      if (r === ']') break;
    }
    let text = this.consume();
    text = text.slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      const union = parts.map((part) => parseAction(`[${part.trim()}]`, this.depth + 1));
      cur.nodes.push({ type: 'union', nodes: union });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key !== null) {
      cur.nodes.push(...parseAction(`.${key[1]}`, this.depth + 1).nodes);
      return;
    }
    const slice = SLICE.exec(text);
    if (slice === null) throw new JsonPathError(`invalid array index ${text}`);
    const params: [SliceParam, SliceParam, SliceParam] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let written = slice[i + 1] ?? '';
      if (written !== '') {
        if (i > 0) written = written.slice(1);
        if (i > 0 && written === '') continue;
        const value = Number(written);
        if (!/^-?\d+$/.test(written) || !Number.isSafeInteger(value)) throw new JsonPathError(`array index ${written} is not a number`);
        params[i] = { value, known: true, derived: false };
      } else if (i === 1) {
        params[1] = { value: params[0].value + 1, known: true, derived: true };
      }
    }
    cur.nodes.push({ type: 'array', params });
  }

  private parseFilter(cur: JsonPathList): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JsonPathError('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const match = FILTER.exec(text);
    if (match === null) {
      cur.nodes.push({ type: 'filter', left: parseAction(text, this.depth + 1), right: { type: 'list', nodes: [] }, operator: 'exists' });
      return;
    }
    cur.nodes.push({
      type: 'filter',
      left: parseAction(match[1]!, this.depth + 1),
      right: parseAction(match[3]!, this.depth + 1),
      operator: match[2]!,
    });
  }

  private parseQuote(cur: JsonPathList, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathError('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consume();
    cur.nodes.push({ type: 'text', text: unquoteExtend(value) });
  }

  private parseField(cur: JsonPathList): void {
    this.consume();
    for (;;) {
      const r = this.next();
      if (r === '\\') this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === '*') cur.nodes.push({ type: 'wildcard' });
    else cur.nodes.push({ type: 'field', name: value.replaceAll('\\', '') });
  }
}

/** parseAction parses `text` as the inside of one action (client-go's parseAction wraps it in `{…}`). */
function parseAction(text: string, depth: number): JsonPathList {
  const root = new Parser(`{${text}}`, depth).parse();
  const first = root.nodes[0];
  if (first === undefined || first.type !== 'list') throw new JsonPathError('invalid syntax');
  return first;
}

function isDigit(r: string): boolean {
  return /^\p{Nd}$/u.test(r);
}

function isAlphaNumeric(r: string): boolean {
  return r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
}

function isTerminator(r: string): boolean {
  return r === EOF || r === ' ' || r === '\t' || r === '\r' || r === '\n' || '.,[]$@{}'.includes(r);
}

/** goUnicode prints a rune as Go's `%#U`: `U+0021 '!'`. */
function goUnicode(r: string): string {
  const code = r.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')} '${r}'`;
}

/** unquoteExtend removes the quotes of a '…' or "…" literal and resolves Go escapes, as client-go's UnquoteExtend does. */
function unquoteExtend(quoted: string): string {
  if (quoted.length < 2) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
  const quote = quoted[0]!;
  if (quote !== quoted.at(-1) || (quote !== '"' && quote !== "'")) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
  const body = quoted.slice(1, -1);
  if (!body.includes('\\') && !body.includes(quote)) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === quote) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };
    if (e !== undefined && simple[e] !== undefined && (e !== "'" || quote === "'") && (e !== '"' || quote === '"')) {
      out += simple[e];
      continue;
    }
    const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hex > 0) {
      const digits = body.slice(i + 1, i + 1 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
      const code = Number.parseInt(digits, 16);
      if (code > 0x10ffff) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
      out += String.fromCodePoint(code);
      i += hex;
      continue;
    }
    if (e !== undefined && /[0-7]/.test(e)) {
      const digits = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(digits) || Number.parseInt(digits, 8) > 255) throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
      out += String.fromCharCode(Number.parseInt(digits, 8));
      i += 2;
      continue;
    }
    throw new JsonPathError(`unquote string ${quoted} error invalid syntax`);
  }
  return out;
}
