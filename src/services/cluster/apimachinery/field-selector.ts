/**
 * Field selectors (apimachinery `fields/selector.go`): comma-joined `k=v`, `k==v`, `k!=v`, with
 * `\` escaping `,`, `=`, `!` and `\` in values. Which fields exist is each resource's business.
 */

/** FieldRequirement is one `field op value` term. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** FieldSelectorSyntaxError is a selector that does not parse; its message is the real parser's. */
export class FieldSelectorSyntaxError extends Error {
  override readonly name = 'FieldSelectorSyntaxError';
}

/** FieldSelector matches an object's selectable field values. */
export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  /** empty is true for the selector matching every object. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** matches is true when every term holds for the given field values. */
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((requirement) => {
      const actual = fields[requirement.field] ?? '';
      return requirement.operator === '=' ? actual === requirement.value : actual !== requirement.value;
    });
  }

  /** exactValue is the value a `field=value` term pins, used to narrow store reads by name or namespace. */
  exactValue(field: string): string | undefined {
    return this.requirements.find((requirement) => requirement.field === field && requirement.operator === '=')?.value;
  }
}

function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) {
      current += c + input[i + 1]!;
      i++;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  terms.push(current);
  return terms;
}

function unescapeValue(value: string, whole: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const escaped = value[i + 1];
      if (escaped === undefined || !'\\,=!'.includes(escaped)) throw new FieldSelectorSyntaxError(`invalid field selector: invalid escape sequence: ${whole}`);
      out += escaped;
      i++;
    } else if (c === '=' || c === ',' || c === '!') {
      throw new FieldSelectorSyntaxError(`invalid field selector: unescaped ${c} in value: ${whole}`);
    } else {
      out += c;
    }
  }
  return out;
}

/** parseFieldSelector parses the string form (an empty string selects everything). */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === '') return new FieldSelector([]);
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (term === '') continue;
    const match = /^([^=!]*?)(!=|==|=)(.*)$/s.exec(term);
    if (match === null) throw new FieldSelectorSyntaxError(`invalid selector: '${input}'; can't understand '${term}'`);
    const [, field, op, rawValue] = match;
    requirements.push({ field: field!.trim(), operator: op === '!=' ? '!=' : '=', value: unescapeValue(rawValue!, input) });
  }
  return new FieldSelector(requirements);
}
