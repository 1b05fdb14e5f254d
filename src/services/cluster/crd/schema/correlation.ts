/**
 * Old and new values of a custom object correlated by path, as the apiserver correlates them for
 * validation ratcheting (k8s.io/apiserver `cel/common` CorrelatedObject and MapList): an object's
 * member with the member of the same name when the schema knows it (a property or
 * additionalProperties), a `x-kubernetes-list-type: map` item with the old item of the same keys
 * (all present, all scalars), and nothing else — items of other lists never correlate. Equality
 * follows the same correlation, so a map list whose items were only reordered is unchanged.
 */
import type { JSONSchemaProps } from '../types.ts';
import { isJsonObject, jsonEqual } from './json-values.ts';

/** memberSchema is the schema a member of an object validates with, when the schema knows the member. */
export function memberSchema(schema: JSONSchemaProps, name: string): JSONSchemaProps | undefined {
  const properties = schema.properties;
  if (properties !== undefined && Object.hasOwn(properties, name)) return properties[name];
  const additional = schema.additionalProperties;
  return additional !== undefined && typeof additional === 'object' ? additional : undefined;
}

/** itemSchema is the schema every item of a list validates with (none for tuple-style `items`). */
function itemSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  const items = schema.items;
  return items === undefined || Array.isArray(items) ? undefined : items;
}

/** mapListKeys are the keys that correlate a list's items, when it is a map list. */
function mapListKeys(schema: JSONSchemaProps): readonly string[] | undefined {
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  return schema.type === 'array' && schema['x-kubernetes-list-type'] === 'map' && keys.length > 0 ? keys : undefined;
}

/** compositeKey is an item's key values as one text, or undefined when a key is missing or not a scalar (MapList's CompositeKeyFor). */
function compositeKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isJsonObject(item)) return undefined;
  const parts: string[] = [];
  for (const key of keys) {
    if (!Object.hasOwn(item, key)) return undefined;
    const value = item[key];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
    parts.push(`${typeof value}:${JSON.stringify(value)}`);
  }
  return parts.join('\u0000');
}

/** ListCorrelation finds the old counterpart of each item of a new list. */
export type ListCorrelation = (item: unknown) => { readonly value: unknown } | undefined;

/** NO_CORRELATION is the correlation of a list whose items have no old counterparts. */
const NO_CORRELATION: ListCorrelation = () => undefined;

/** listCorrelation correlates the items of a map list with the old list's items of the same keys (the first such old item); other lists' items do not correlate. */
export function listCorrelation(schema: JSONSchemaProps, oldList: unknown): ListCorrelation {
  const keys = mapListKeys(schema);
  if (keys === undefined || !Array.isArray(oldList) || oldList.length === 0 || itemSchema(schema) === undefined) return NO_CORRELATION;
  let byKey: Map<string, unknown> | undefined;
  return (item) => {
    const key = compositeKey(item, keys);
    if (key === undefined) return undefined;
    if (byKey === undefined) {
      byKey = new Map();
      for (const old of oldList) {
        const oldKey = compositeKey(old, keys);
        if (oldKey !== undefined && !byKey.has(oldKey)) byKey.set(oldKey, old);
      }
    }
    return byKey.has(key) ? { value: byKey.get(key) } : undefined;
  };
}

/**
 * correlatedEqual is the apiserver's CachedDeepEqual: whether a value is unchanged from its
 * correlated old value. Objects are equal when every member correlates (the schema knows it) and
 * is equal; map lists when every item correlates to an equal old item (order aside); other lists
 * and scalars when deeply equal.
 */
export function correlatedEqual(schema: JSONSchemaProps, value: unknown, old: unknown): boolean {
  const absent = (item: unknown) => item === null || item === undefined;
  if (absent(value) && absent(old)) return true;
  if (absent(value) || absent(old)) return false;
  if (Array.isArray(value) !== Array.isArray(old) || isJsonObject(value) !== isJsonObject(old)) return false;
  if (Array.isArray(value) && Array.isArray(old)) {
    if (value.length !== old.length) return false;
    const items = itemSchema(schema);
    if (mapListKeys(schema) === undefined || items === undefined) return jsonEqual(value, old);
    const correlate = listCorrelation(schema, old);
    return value.every((item) => {
      const counterpart = correlate(item);
      return counterpart !== undefined && correlatedEqual(items, item, counterpart.value);
    });
  }
  if (isJsonObject(value) && isJsonObject(old)) {
    const names = Object.keys(value);
    if (names.length !== Object.keys(old).length) return false;
    return names.every((name) => {
      const member = memberSchema(schema, name);
      return member !== undefined && Object.hasOwn(old, name) && correlatedEqual(member, value[name], old[name]);
    });
  }
  return jsonEqual(value, old);
}
