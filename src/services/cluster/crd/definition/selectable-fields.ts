/**
 * Checks of `selectableFields` (apiextensions validation `ValidateCustomResourceSelectableFields`,
 * resolving each path through the schema as the CEL `ValidFieldPath` does, without array notation).
 */
import { duplicate, type FieldError, invalid, required, tooMany } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';

/** MAX_SELECTABLE_FIELDS is the apiserver's limit. */
const MAX_SELECTABLE_FIELDS = 8;

/** validateSelectableFields checks each path: set, resolvable, not under metadata, a string/boolean/integer field, unique, at most 8. */
export function validateSelectableFields(fields: readonly { jsonPath: string }[], schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const unique = new Set<string>();
  for (const [index, field] of fields.entries()) {
    const at = `${path}[${index}].jsonPath`;
    const jsonPath = typeof field?.jsonPath === 'string' ? field.jsonPath : '';
    if (jsonPath === '') {
      errors.push(required(at));
      continue;
    }
    const resolved = resolveFieldPath(jsonPath, schema);
    if (typeof resolved === 'string') {
      errors.push(invalid(at, jsonPath, `is an invalid path: ${resolved}`));
      continue;
    }
    if (resolved.root === 'metadata') errors.push(invalid(at, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(resolved.schema.type ?? '')) {
      errors.push(invalid(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(resolved.path)) errors.push(duplicate(at, jsonPath));
    else unique.add(resolved.path);
  }
  if (unique.size > MAX_SELECTABLE_FIELDS) {
    errors.push(tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  }
  return errors;
}

/** resolveFieldPath walks `.a.b` / `['a']` through properties and additionalProperties; a string is the error. */
function resolveFieldPath(jsonPath: string, root: JSONSchemaProps): { root: string; path: string; schema: JSONSchemaProps } | string {
  const tokens = jsonPath.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let schema: JSONSchemaProps | undefined = root;
  const steps: string[] = [];
  let i = 0;
  const step = (name: string): string | undefined => {
    if (schema?.properties !== undefined) {
      const next: JSONSchemaProps | undefined = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      if (next === undefined) return 'does not refer to a valid field';
      schema = next;
      steps.push(steps.length === 0 ? name : `.${name}`);
      return undefined;
    }
    if (schema?.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
      schema = schema.additionalProperties;
      steps.push(`[${name}]`);
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  while (i < tokens.length) {
    const token = tokens[i++]!;
    if (token === '[') return 'array notation is not allowed';
    if (token !== '.') return `expected [ or . but got: ${token}`;
    const name = tokens[i++];
    if (name === undefined) return 'unexpected end of JSON path';
    const problem = step(name);
    if (problem !== undefined) return problem;
  }
  if (steps.length === 0) return 'unexpected end of JSON path';
  return { root: steps[0]!, path: steps.join(''), schema: schema ?? {} };
}
