/**
 * The invariants of `x-kubernetes-list-type` on values (apiextensions `apiserver/schema/listtype`):
 * a `set` has no repeated item, a `map` list has objects with no repeated key, each repeat a
 * `Duplicate value` at its index (`spec.ports[2]: Duplicate value: map[string]interface {}{"port":80}`).
 */
import { type FieldError, duplicate, GoLiteral, invalid } from '../../apimachinery/field-errors.ts';
import { ownValue } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { canonicalJson, goNumber, isJsonObject } from './json-values.ts';

/** goLiteralOf prints a decoded JSON value as Go's `%#v` prints the unstructured value. */
export function goLiteralOf(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goLiteralOf).join(', ')}}`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `map[string]interface {}{${keys.map((key) => `${JSON.stringify(key)}:${goLiteralOf(record[key])}`).join(', ')}}`;
}

/** goFieldValue is a decoded JSON value as a field error prints it: strings quoted, numbers as Go's int64/float64, compound values as Go literals. */
export function goFieldValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) return new GoLiteral(goLiteralOf(value));
  if (typeof value === 'number') return new GoLiteral(goNumber(value));
  return value;
}

const itemValue = goFieldValue;

/** repeatedIndices are the indices where an item is seen for the second time (each identity once). */
function repeatedIndices(identities: readonly string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  identities.forEach((identity, index) => {
    const times = seen.get(identity) ?? 0;
    if (times === 1) out.push(index);
    seen.set(identity, times + 1);
  });
  return out;
}

function checkArray(path: string, schema: JSONSchemaProps, list: unknown[], errors: FieldError[]): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (const index of repeatedIndices(list.map(canonicalJson))) errors.push(duplicate(`${path}[${index}]`, itemValue(list[index])));
  } else if (listType === 'map') {
    const notObject = list.findIndex((item) => item !== null && !isJsonObject(item));
    if (notObject >= 0) {
      errors.push(invalid(`${path}[${notObject}]`, itemValue(list[notObject]), 'must be an object for an array of list-type map'));
    } else if (list.length > 1) {
      const keyFields = schema['x-kubernetes-list-map-keys'] ?? [];
      const keys = list.map((item) => {
        const key: Record<string, unknown> = {};
        if (isJsonObject(item)) for (const field of keyFields) if (Object.hasOwn(item, field)) key[field] = item[field];
        return key;
      });
      for (const index of repeatedIndices(keys.map(canonicalJson))) errors.push(duplicate(`${path}[${index}]`, new GoLiteral(goLiteralOf(keys[index]))));
    }
  }
  const items = Array.isArray(schema.items) ? undefined : schema.items;
  if (items !== undefined)
    list.forEach((item, index) => {
      walk(`${path}[${index}]`, items, item, errors);
    });
}

function walk(path: string, schema: JSONSchemaProps, value: unknown, errors: FieldError[]): void {
  if (Array.isArray(value)) checkArray(path, schema, value, errors);
  else if (isJsonObject(value)) checkObject(path, schema, value, errors);
}

function checkObject(path: string, schema: JSONSchemaProps, object: Record<string, unknown>, errors: FieldError[]): void {
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (additional !== undefined) for (const [key, value] of Object.entries(object)) walk(`${path}[${key}]`, additional, value, errors);
  const properties = schema.properties;
  if (properties !== undefined) {
    for (const [key, value] of Object.entries(object)) {
      const property = ownValue(properties, key);
      if (property !== undefined) walk(path === '' ? key : `${path}.${key}`, property, value, errors);
    }
  }
}

/** validateListTypes reports repeated items of sets and repeated keys of map lists anywhere in an object. */
export function validateListTypes(schema: JSONSchemaProps, object: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  checkObject('', schema, object, errors);
  return errors;
}
