/**
 * Structural defaulting (apiextensions `apiserver/schema/defaulting`), applied to request bodies
 * and to objects read from storage, so old objects gain new defaults on read: a property that is
 * missing, or null where the schema does not allow null, gets a copy of its `default`; the same
 * for additionalProperties values and list items that are null; then defaulting goes down into
 * every member and item the schema describes.
 */
import { ownValue, setOwn } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { cloneJson, isJsonObject } from './json-values.ts';

const isNonNullableNull = (value: unknown, schema: JSONSchemaProps | undefined): boolean => value === null && schema !== undefined && schema.nullable !== true;

/** applyDefaults defaults `value` in place (it is a private copy). */
function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (isJsonObject(value)) {
    const properties = schema.properties ?? {};
    for (const [key, property] of Object.entries(properties)) {
      if (property.default === undefined) continue;
      if (!Object.hasOwn(value, key) || isNonNullableNull(value[key], property)) setOwn(value, key, cloneJson(property.default));
    }
    const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key of Object.keys(value)) {
      const property = ownValue(properties, key);
      if (property !== undefined) {
        applyDefaults(value[key], property);
      } else if (additional !== undefined) {
        if (isNonNullableNull(value[key], additional) && additional.default !== undefined) setOwn(value, key, cloneJson(additional.default));
        applyDefaults(value[key], additional);
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    for (let index = 0; index < value.length; index++) {
      if (isNonNullableNull(value[index], items) && items?.default !== undefined) value[index] = cloneJson(items.default);
      applyDefaults(value[index], items);
    }
  }
}

/** defaultCustomObject returns a new object with the schema's defaults applied, as structural defaulting does. */
export function defaultCustomObject(schema: JSONSchemaProps, object: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(object);
  applyDefaults(copy, schema);
  return copy;
}
