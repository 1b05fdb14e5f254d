/**
 * Label selectors in their full string syntax (apimachinery `labels/selector.go`):
 * `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>1`, `k<1`, comma-joined.
 * Also the structured `LabelSelector` (matchLabels / matchExpressions) used in object fields.
 */
import { isLabelValue, isQualifiedName } from './name-rules.ts';

type Operator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

/** Requirement is one condition of a selector. */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

/** LabelSelector matches label maps; the empty selector matches everything. */
export class LabelSelector {
  constructor(readonly requirements: readonly Requirement[]) {}

  /** empty is true for the selector that matches every object. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** matches is true when every requirement holds for `labels`. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    return this.requirements.every((requirement) => requirementMatches(requirement, labels ?? {}));
  }
}

function requirementMatches(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && requirement.values.includes(value!);
    case '!=':
    case 'notin':
      return !has || !requirement.values.includes(value!);
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      if (!Number.isInteger(actual)) return false;
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** LabelSelectorSyntaxError is a selector string that does not parse; the message is the real parser's. */
export class LabelSelectorSyntaxError extends Error {
  override readonly name = 'LabelSelectorSyntaxError';
}

type Token = { kind: 'id' | 'op' | 'open' | 'close' | 'comma' | 'end'; text: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c === '(' ? 'open' : c === ')' ? 'close' : 'comma', text: c });
      i++;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === '==' || two === '!=') {
      tokens.push({ kind: 'op', text: two });
      i += 2;
      continue;
    }
    if (c === '=' || c === '!' || c === '<' || c === '>') {
      tokens.push({ kind: 'op', text: c });
      i++;
      continue;
    }
    let j = i;
    while (j < input.length && !' \t(),=!<>'.includes(input[j]!)) j++;
    tokens.push({ kind: 'id', text: input.slice(i, j) });
    i = j;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

function describe(token: Token): string {
  return token.kind === 'end' ? '' : token.text;
}

/** parseLabelSelector parses the string form; throws LabelSelectorSyntaxError with the real wording. */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  let at = 0;
  const next = (): Token => tokens[at++]!;
  const peek = (): Token => tokens[at]!;
  const requirements: Requirement[] = [];
  if (peek().kind === 'end') return new LabelSelector([]);
  for (;;) {
    let token = next();
    let operator: Operator | undefined;
    if (token.kind === 'op' && token.text === '!') {
      operator = '!';
      token = next();
    }
    if (token.kind !== 'id') throw new LabelSelectorSyntaxError(`found '${describe(token)}', expected: identifier`);
    const key = token.text;
    checkKey(key);
    let values: string[] = [];
    if (operator === undefined) {
      const after = peek();
      if (after.kind === 'comma' || after.kind === 'end') {
        operator = 'exists';
      } else if (after.kind === 'op') {
        next();
        operator =
          after.text === '==' || after.text === '=' ? '=' : after.text === '!=' ? '!=' : after.text === '>' ? 'gt' : after.text === '<' ? 'lt' : undefined;
        if (operator === undefined) throw new LabelSelectorSyntaxError(`found '${after.text}', expected: ${validOperators()}`);
        const value = peek();
        if (value.kind === 'id') {
          next();
          values = [value.text];
        } else if (value.kind === 'comma' || value.kind === 'end') {
          if (operator === 'gt' || operator === 'lt') throw new LabelSelectorSyntaxError(`found '${describe(value)}', expected: identifier`);
          values = [''];
        } else {
          throw new LabelSelectorSyntaxError(`found '${describe(value)}', expected: identifier`);
        }
        if ((operator === 'gt' || operator === 'lt') && !/^-?\d+$/.test(values[0]!)) {
          throw new LabelSelectorSyntaxError(`for 'Gt', 'Lt' operators, the value must be an integer`);
        }
      } else if (after.kind === 'id' && (after.text === 'in' || after.text === 'notin')) {
        next();
        operator = after.text;
        const open = next();
        if (open.kind !== 'open') throw new LabelSelectorSyntaxError(`found '${describe(open)}', expected: '('`);
        values = parseValueSet(next, peek);
      } else {
        throw new LabelSelectorSyntaxError(`found '${describe(after)}', expected: ${validOperators()}`);
      }
    }
    for (const value of values) {
      const problems = isLabelValue(value);
      if (problems.length > 0) throw new LabelSelectorSyntaxError(`values[0][${key}]: Invalid value: ${JSON.stringify(value)}: ${problems.join('; ')}`);
    }
    requirements.push({ key, operator, values });
    const separator = next();
    if (separator.kind === 'end') break;
    if (separator.kind !== 'comma') throw new LabelSelectorSyntaxError(`found '${describe(separator)}', expected: ',' or 'end of string'`);
  }
  return new LabelSelector(requirements);
}

function parseValueSet(next: () => Token, peek: () => Token): string[] {
  const values: string[] = [];
  if (peek().kind === 'close') {
    next();
    return [''];
  }
  for (;;) {
    const value = peek();
    if (value.kind === 'id') {
      next();
      values.push(value.text);
    } else if (value.kind === 'comma' || value.kind === 'close') {
      values.push('');
    } else {
      throw new LabelSelectorSyntaxError(`found '${describe(value)}', expected: ',', ')' or identifier`);
    }
    const separator = next();
    if (separator.kind === 'close') return values;
    if (separator.kind !== 'comma') throw new LabelSelectorSyntaxError(`found '${describe(separator)}', expected: ',' or ')'`);
  }
}

function validOperators(): string {
  return "'!=', '=', '==', '<', '>', 'in', 'notin'";
}

function checkKey(key: string): void {
  const problems = isQualifiedName(key);
  if (problems.length > 0) throw new LabelSelectorSyntaxError(`key: Invalid value: ${JSON.stringify(key)}: ${problems.join('; ')}`);
}

/** StructuredLabelSelector is the `LabelSelector` object form used inside resources. */
export interface StructuredLabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** fromStructured converts the object form (operators In, NotIn, Exists, DoesNotExist) to a selector. */
export function fromStructured(selector: StructuredLabelSelector): LabelSelector {
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: '=', values: [value] }));
  for (const expression of selector.matchExpressions ?? []) {
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[expression.operator as 'In'];
    if (operator === undefined) throw new LabelSelectorSyntaxError(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    requirements.push({ key: expression.key, operator, values: expression.values ?? [] });
  }
  return new LabelSelector(requirements);
}
