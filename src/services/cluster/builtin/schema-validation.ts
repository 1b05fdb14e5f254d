/**
 * What a decoded body can still get wrong against its schema: missing required fields and
 * values outside an enumeration (types and unknown fields were settled when the body was
 * decoded, see apimachinery/schema.ts). Worded as the apiserver's field errors
 * (`spec.containers: Required value`, `spec.type: Unsupported value: "X": supported values: …`).
 */
import { notSupported, required, type FieldError } from '../apimachinery/field-errors.ts';
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';

/** validateSchemaRules walks `object` (already decoded against `root`) and reports required and enum violations; metadata is left to the metadata rules. */
export function validateSchemaRules(object: Record<string, unknown>, root: string, schemas: SchemaSet): FieldError[] {
  const errors: FieldError[] = [];
  const resolve = (schema: Schema): Exclude<Schema, { $ref: string }> | undefined => {
    let current: Schema | undefined = schema;
    while (current !== undefined && '$ref' in current) current = schemas[current.$ref];
    return current;
  };
  const walk = (value: unknown, schema: Schema, path: string): void => {
    if (value === undefined || value === null) return;
    const s = resolve(schema);
    if (s === undefined) return;
    switch (s.type) {
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) return;
        const record = value as Record<string, unknown>;
        for (const name of s.required ?? []) {
          if (record[name] === undefined) errors.push(required(path === '' ? name : `${path}.${name}`));
        }
        for (const [key, property] of Object.entries(s.properties)) {
          if (path === '' && key === 'metadata') continue;
          const item = record[key];
          if (item !== undefined) walk(item, property, path === '' ? key : `${path}.${key}`);
        }
        return;
      }
      case 'array':
        if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) walk(item, s.items, `${path}[${index}]`);
        }
        return;
      case 'map':
        if (typeof value === 'object' && !Array.isArray(value)) {
          for (const [key, item] of Object.entries(value as Record<string, unknown>)) walk(item, s.values, `${path}[${key}]`);
        }
        return;
      case 'string':
        if (s.enum !== undefined && typeof value === 'string' && value !== '' && !s.enum.includes(value)) errors.push(notSupported(path, value, s.enum));
        return;
      default:
        return;
    }
  };
  walk(object, { $ref: root }, '');
  return errors;
}
