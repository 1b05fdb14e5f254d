import { compileRe2, quoteRe2, Re2SyntaxError, type Re2Pattern } from './re2.ts';
import { invalidFieldValue } from './errors.ts';

/** FilterPredicate decides whether a rendered resource matches a list filter. */
export type FilterPredicate = (item: Record<string, unknown>) => boolean;

/**
 * compileFilter parses a compute list `filter`: comparisons `FIELD OP VALUE` with OP one of
 * `=`, `!=`, `<`, `<=`, `>`, `>=`, `:` (has; `:*` tests presence), joined by AND / OR (AND binds
 * tighter; juxtaposition means AND), NOT, and parentheses; and the legacy `FIELD eq|ne REGEX`
 * form (full-match RE2 patterns, run in linear time; quoted patterns keep their backslash escapes,
 * which is what gcloud's server-side rewrite of `--filter` sends: `(name eq ".*\bweb\b.*")(status eq DONE)`).
 * `*` in a value is a wildcard. Fields are dotted paths
 * (`labels.env`, `properties.machineType`); a repeated field matches when any element does.
 */
export function compileFilter(text: string): FilterPredicate {
  if (text.trim() === '') return () => true;
  try {
    const parser = new FilterParser(tokenize(text));
    const predicate = parser.parseOr();
    if (!parser.done()) throw new SyntaxError('unexpected input after the expression');
    return predicate;
  } catch (error) {
    if (error instanceof SyntaxError) throw invalidFieldValue('filter', text, `Invalid list filter expression: ${error.message}.`);
    throw error;
  }
}

/**
 * Token is one lexeme. A quoted string keeps its `raw` text (backslash escapes as written) for the
 * regular-expression operators, which hand escapes like `\b` or `\.` to RE2 (gcloud sends
 * `name eq ".*\bweb\-1\b.*"`), and its unescaped `text` for the literal operators.
 */
type Token = { readonly type: 'word' | 'string' | 'op' | 'lparen' | 'rparen'; readonly text: string; readonly raw: string };

/** MAX_FILTER_NESTING bounds parentheses and NOT/- prefixes, so a hostile filter cannot exhaust the stack. */
export const MAX_FILTER_NESTING = 100;

const SPACE = /\s+/y;
const OPERATOR = /!=|<=|>=|=|<|>|:/y;
const WORD = /[^\s()=!<>:"']+/y;
const BARE_OPERAND = /[^\s()]+/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    return match === null ? undefined : match[0];
  };
  while (i < text.length) {
    const c = text[i]!;
    const space = at(SPACE);
    if (space !== undefined) {
      i += space.length;
    } else if (c === '(' || c === ')') {
      tokens.push({ type: c === '(' ? 'lparen' : 'rparen', text: c, raw: c });
      i++;
    } else if (c === '-' && !expectsValue(tokens)) {
      // A leading '-' negates a term (`-labels.env:*`); where a value is due it belongs to it (`= -1`).
      tokens.push({ type: 'word', text: '-', raw: '-' });
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) {
        // A backslash escapes the next character: it cannot end the string, and it stays in `raw`.
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      if (j >= text.length) throw new SyntaxError('unterminated string');
      tokens.push({ type: 'string', text: value, raw: text.slice(i + 1, j) });
      i = j + 1;
    } else if (afterRegexOperator(tokens)) {
      // An unquoted eq/ne operand runs to the next space or parenthesis: gcloud sends timestamps
      // bare (`creationTimestamp eq 2025-01-01T00:00:00.000Z`), colons and all.
      const word = at(BARE_OPERAND)!;
      tokens.push({ type: 'word', text: word, raw: word });
      i += word.length;
    } else {
      const op = at(OPERATOR);
      const word = op === undefined ? at(WORD) : undefined;
      if (op !== undefined) tokens.push({ type: 'op', text: op, raw: op });
      else if (word !== undefined) tokens.push({ type: 'word', text: word, raw: word });
      else throw new SyntaxError(`unexpected character '${c}'`);
      i += (op ?? word)!.length;
    }
  }
  return tokens;
}

/** afterRegexOperator is true when the next token is the operand of `eq` or `ne`. */
function afterRegexOperator(tokens: readonly Token[]): boolean {
  const last = tokens[tokens.length - 1];
  return last?.type === 'word' && (last.text === 'eq' || last.text === 'ne') && tokens.length >= 2 && tokens[tokens.length - 2]!.type === 'word';
}

/** expectsValue is true when the next token is the value of a comparison. */
function expectsValue(tokens: readonly Token[]): boolean {
  const last = tokens[tokens.length - 1];
  return last !== undefined && (last.type === 'op' || (last.type === 'word' && (last.text === 'eq' || last.text === 'ne')));
}

class FilterParser {
  #at = 0;
  constructor(readonly tokens: readonly Token[]) {}

  done(): boolean {
    return this.#at >= this.tokens.length;
  }

  parseOr(): FilterPredicate {
    const parts = [this.parseAnd()];
    while (this.#peekWord('OR')) {
      this.#at++;
      parts.push(this.parseAnd());
    }
    return parts.length === 1 ? parts[0]! : (item) => parts.some((part) => part(item));
  }

  parseAnd(): FilterPredicate {
    const parts = [this.parseUnary()];
    for (;;) {
      if (this.#peekWord('AND')) this.#at++;
      else if (this.done() || this.#peekWord('OR') || this.tokens[this.#at]!.type === 'rparen') break;
      parts.push(this.parseUnary());
    }
    return parts.length === 1 ? parts[0]! : (item) => parts.every((part) => part(item));
  }

  parseUnary(): FilterPredicate {
    if (this.#peekWord('NOT') || this.tokens[this.#at]?.text === '-') {
      this.#at++;
      const inner = this.#nested(() => this.parseUnary());
      return (item) => !inner(item);
    }
    const token = this.tokens[this.#at];
    if (token === undefined) throw new SyntaxError('expression ends too early');
    if (token.type === 'lparen') {
      this.#at++;
      const inner = this.#nested(() => this.parseOr());
      if (this.tokens[this.#at]?.type !== 'rparen') throw new SyntaxError("missing ')'");
      this.#at++;
      return inner;
    }
    return this.parseComparison();
  }

  #depth = 0;

  #nested(parse: () => FilterPredicate): FilterPredicate {
    if (++this.#depth > MAX_FILTER_NESTING) throw new SyntaxError(`nesting deeper than ${MAX_FILTER_NESTING} levels`);
    try {
      return parse();
    } finally {
      this.#depth--;
    }
  }

  parseComparison(): FilterPredicate {
    const field = this.tokens[this.#at++];
    if (field?.type !== 'word') throw new SyntaxError('expected a field name');
    const op = this.tokens[this.#at++];
    if (op === undefined) throw new SyntaxError(`expected an operator after '${field.text}'`);
    const value = this.tokens[this.#at++];
    if (value === undefined || (value.type !== 'word' && value.type !== 'string')) throw new SyntaxError(`expected a value after '${op.text}'`);
    const path = field.text.split('.');
    const test = comparator(op, value);
    return (item) => {
      const found = valuesAt(item, path);
      if (op.text === '!=' || op.text === 'ne') return found.length === 0 || found.every((v) => test(v));
      return found.some((v) => test(v));
    };
  }

  #peekWord(word: string): boolean {
    const token = this.tokens[this.#at];
    return token?.type === 'word' && token.text === word;
  }
}

function comparator(op: Token, value: Token): (actual: string) => boolean {
  switch (op.text) {
    case 'eq':
    case 'ne': {
      // The legacy form: an RE2 pattern that must match the whole field, escapes as written.
      let pattern: Re2Pattern;
      try {
        pattern = compileRe2(value.raw);
      } catch (error) {
        if (error instanceof Re2SyntaxError) throw new SyntaxError(`invalid regular expression '${value.raw}': ${error.reason}`);
        throw error;
      }
      // A timestamp operand (gcloud normalises `creationTimestamp=2025-01-01` to UTC) also matches
      // the same instant written with another offset, as the service's timestamp fields do.
      const instant = RFC3339.test(value.raw) ? Date.parse(value.raw) : Number.NaN;
      const matches = Number.isNaN(instant)
        ? (actual: string) => pattern.fullMatch(actual)
        : (actual: string) => pattern.fullMatch(actual) || (RFC3339.test(actual) && Date.parse(actual) === instant);
      return op.text === 'eq' ? matches : (actual) => !matches(actual);
    }
    case '=':
      return globTest(value.text, false);
    case '!=': {
      const equal = globTest(value.text, false);
      return (actual) => !equal(actual);
    }
    case ':':
      return value.text === '*' ? () => true : globTest(`*${value.text}*`, true);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (actual) => {
        const order = compareValues(actual, value.text);
        return op.text === '<' ? order < 0 : op.text === '<=' ? order <= 0 : op.text === '>' ? order > 0 : order >= 0;
      };
    default:
      if (op.type === 'word') throw new SyntaxError(`unknown operator '${op.text}'`);
      throw new SyntaxError(`unexpected '${op.text}'`);
  }
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

/** globTest compares with `*` as a wildcard, on RE2 so that many wildcards cannot backtrack. */
function globTest(pattern: string, caseInsensitive: boolean): (actual: string) => boolean {
  if (!pattern.includes('*')) return caseInsensitive ? (actual) => actual.toLowerCase() === pattern.toLowerCase() : (actual) => actual === pattern;
  const compiled = compileRe2(pattern.split('*').map(quoteRe2).join('.*'), { caseInsensitive, dotAll: true });
  return (actual) => compiled.fullMatch(actual);
}

function compareValues(actual: string, expected: string): number {
  const a = Number(actual);
  const b = Number(expected);
  if (actual !== '' && expected !== '' && !Number.isNaN(a) && !Number.isNaN(b)) return a - b;
  return actual < expected ? -1 : actual > expected ? 1 : 0;
}

function valuesAt(item: unknown, path: readonly string[]): string[] {
  let current: unknown[] = [item];
  for (const segment of path) {
    const next: unknown[] = [];
    for (const value of current) {
      if (Array.isArray(value)) {
        for (const element of value)
          if (element !== null && typeof element === 'object' && segment in element) next.push((element as Record<string, unknown>)[segment]);
      } else if (value !== null && typeof value === 'object' && segment in value) {
        next.push((value as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  return current
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .filter((value) => value !== undefined && value !== null)
    .map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)));
}
