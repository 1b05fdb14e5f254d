import { invalidFieldValue } from './errors.ts';

/** FilterPredicate decides whether a rendered resource matches a list filter. */
export type FilterPredicate = (item: Record<string, unknown>) => boolean;

/**
 * compileFilter parses a compute list `filter`: comparisons `FIELD OP VALUE` with OP one of
 * `=`, `!=`, `<`, `<=`, `>`, `>=`, `:` (has; `:*` tests presence), joined by AND / OR (AND binds
 * tighter; juxtaposition means AND), NOT, and parentheses; and the legacy `FIELD eq|ne REGEX`
 * form (full-match regular expressions). `*` in a value is a wildcard. Fields are dotted paths
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

type Token = { readonly type: 'word' | 'string' | 'op' | 'lparen' | 'rparen'; readonly text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ type: c === '(' ? 'lparen' : 'rparen', text: c });
      i++;
    } else if (c === '-' && !expectsValue(tokens)) {
      // A leading '-' negates a term (`-labels.env:*`); where a value is due it belongs to it (`= -1`).
      tokens.push({ type: 'word', text: '-' });
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      if (j >= text.length) throw new SyntaxError('unterminated string');
      tokens.push({ type: 'string', text: value });
      i = j + 1;
    } else {
      const op = /^(!=|<=|>=|=|<|>|:)/.exec(text.slice(i));
      if (op !== null) {
        tokens.push({ type: 'op', text: op[1]! });
        i += op[1]!.length;
      } else {
        const word = /^[^\s()=!<>:"']+/.exec(text.slice(i));
        if (word === null) throw new SyntaxError(`unexpected character '${c}'`);
        tokens.push({ type: 'word', text: word[0] });
        i += word[0].length;
      }
    }
  }
  return tokens;
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
      const inner = this.parseUnary();
      return (item) => !inner(item);
    }
    const token = this.tokens[this.#at];
    if (token === undefined) throw new SyntaxError('expression ends too early');
    if (token.type === 'lparen') {
      this.#at++;
      const inner = this.parseOr();
      if (this.tokens[this.#at]?.type !== 'rparen') throw new SyntaxError("missing ')'");
      this.#at++;
      return inner;
    }
    return this.parseComparison();
  }

  parseComparison(): FilterPredicate {
    const field = this.tokens[this.#at++];
    if (field?.type !== 'word') throw new SyntaxError('expected a field name');
    const op = this.tokens[this.#at++];
    if (op === undefined) throw new SyntaxError(`expected an operator after '${field.text}'`);
    const value = this.tokens[this.#at++];
    if (value === undefined || (value.type !== 'word' && value.type !== 'string')) throw new SyntaxError(`expected a value after '${op.text}'`);
    const path = field.text.split('.');
    const test = comparator(op, value.text);
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

function comparator(op: Token, value: string): (actual: string) => boolean {
  switch (op.text) {
    case 'eq':
    case 'ne': {
      let regex: RegExp;
      try {
        regex = new RegExp(`^(?:${value})$`);
      } catch {
        throw new SyntaxError(`invalid regular expression '${value}'`);
      }
      return op.text === 'eq' ? (actual) => regex.test(actual) : (actual) => !regex.test(actual);
    }
    case '=':
      return globTest(value, false);
    case '!=': {
      const equal = globTest(value, false);
      return (actual) => !equal(actual);
    }
    case ':':
      return value === '*' ? () => true : globTest(`*${value}*`, true);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (actual) => {
        const order = compareValues(actual, value);
        return op.text === '<' ? order < 0 : op.text === '<=' ? order <= 0 : op.text === '>' ? order > 0 : order >= 0;
      };
    default:
      if (op.type === 'word') throw new SyntaxError(`unknown operator '${op.text}'`);
      throw new SyntaxError(`unexpected '${op.text}'`);
  }
}

function globTest(pattern: string, caseInsensitive: boolean): (actual: string) => boolean {
  if (!pattern.includes('*')) return caseInsensitive ? (actual) => actual.toLowerCase() === pattern.toLowerCase() : (actual) => actual === pattern;
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  const regex = new RegExp(`^${source}$`, caseInsensitive ? 'is' : 's');
  return (actual) => regex.test(actual);
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
        for (const element of value) if (element !== null && typeof element === 'object' && segment in element) next.push((element as Record<string, unknown>)[segment]);
      } else if (value !== null && typeof value === 'object' && segment in value) {
        next.push((value as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  return current.flatMap((value) => (Array.isArray(value) ? value : [value])).filter((value) => value !== undefined && value !== null).map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)));
}
