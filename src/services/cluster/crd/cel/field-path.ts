/**
 * A rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`): parsed and checked
 * against the schema as the apiserver's ValidFieldPath does, and turned into the printed path the
 * error is reported at.
 */
import type { JSONSchemaProps } from '../types.ts';

/** validFieldPath returns the printed suffix (`.replicas`, `[app]`) of a valid path, or the reason it is invalid. */
export function validFieldPath(path: string, schema: JSONSchemaProps): { suffix: string } | { error: string } {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      tokens.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  let node: JSONSchemaProps | undefined = schema;
  let suffix = '';
  const step = (name: string): string | undefined => {
    if (node?.properties !== undefined) {
      const next: JSONSchemaProps | undefined = node.properties[name];
      if (next === undefined) return 'does not refer to a valid field';
      suffix += `.${name}`;
      node = next;
      return undefined;
    }
    if (typeof node?.additionalProperties === 'object') {
      suffix += `[${name}]`;
      node = node.additionalProperties;
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if (tok === '[') {
      const quoted = tokens[++t];
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return { error: `expected single quoted string but got ${quoted}` };
      const unescaped = quoted.slice(1, -1).replace(/\\(.)/g, (_m, ch: string) => ({ n: '\n', t: '\t', r: '\r', "'": "'", '\\': '\\' })[ch] ?? ch);
      const err = step(unescaped);
      if (err !== undefined) return { error: err };
      if (tokens[++t] !== ']') return { error: `expected ] but got ${tokens[t] ?? ''}` };
    } else if (tok === '.') {
      const name = tokens[++t];
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      const err = step(name);
      if (err !== undefined) return { error: err };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
  }
  return { suffix };
}
