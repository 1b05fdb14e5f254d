/** TemplateVariable is one `{field.path=pattern}` of a path template. */
export interface TemplateVariable {
  /** fieldPath is the dotted request field path in proto names. */
  readonly fieldPath: readonly string[];
  /** segments is the pattern: literals, `*` and `**`; `['*']` when none was written. */
  readonly segments: readonly string[];
}

/** PathTemplate is a parsed `google.api.http` path: literal text and variables, then a verb. */
export interface PathTemplate {
  readonly parts: readonly (string | TemplateVariable)[];
}

/** TemplateError is a path template that does not follow the http.proto grammar. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

/**
 * parsePathTemplate parses the http.proto template grammar
 *   Template = "/" Segments [ Verb ] ; Segment = "*" | "**" | LITERAL | Variable ;
 *   Variable = "{" FieldPath [ "=" Segments ] "}" ; Verb = ":" LITERAL ;
 * including AIP-127 resource patterns such as `{name=projects/*\/regions/*}`.
 * Wildcards outside a variable are rejected: a client has no value to put there.
 */
export function parsePathTemplate(template: string): PathTemplate {
  if (!template.startsWith('/')) throw new TemplateError(`path template "${template}" must start with "/"`);
  const parts: (string | TemplateVariable)[] = [];
  let literal = '';
  let i = 0;
  const fail = (why: string): never => {
    throw new TemplateError(`path template "${template}": ${why}`);
  };
  while (i < template.length) {
    const ch = template[i] as string;
    if (ch === '{') {
      const close = template.indexOf('}', i);
      if (close < 0) fail('unclosed "{"');
      const body = template.slice(i + 1, close);
      const eq = body.indexOf('=');
      const field = eq < 0 ? body : body.slice(0, eq);
      if (!/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(field)) fail(`invalid field path "${field}"`);
      const segments = eq < 0 ? ['*'] : body.slice(eq + 1).split('/');
      for (const s of segments) {
        if (s === '' || /[{}:]/.test(s) || (s.includes('*') && s !== '*' && s !== '**')) fail(`invalid segment "${s}" in "{${body}}"`);
      }
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push({ fieldPath: field.split('.'), segments });
      i = close + 1;
      continue;
    }
    if (ch === '}') fail('unexpected "}"');
    if (ch === '*' && (template[i - 1] === '/' || i === 0)) fail('a wildcard outside a variable cannot be expanded by a client');
    literal += ch;
    i++;
  }
  if (literal !== '') parts.push(literal);
  return { parts };
}

/**
 * variablePattern returns a regular expression source matching a variable's value. A lone `*`
 * accepts any non-empty value: the client percent-encodes it whole, `/` included.
 */
export function variablePattern(segments: readonly string[]): string {
  if (segments.length === 1 && segments[0] === '*') return '^.+$';
  return `^${segments.map((s) => (s === '*' ? '[^/]+' : s === '**' ? '.*' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`;
}

/** isMultiSegment tells whether a variable may hold `/` (so `/` stays unescaped when expanded). */
export function isMultiSegment(segments: readonly string[]): boolean {
  return segments.length > 1 || segments[0] === '**';
}
