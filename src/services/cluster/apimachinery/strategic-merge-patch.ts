/**
 * Strategic merge patch (apimachinery `util/strategicpatch`): a JSON merge patch whose lists follow
 * the patch strategy of their schema — lists tagged `merge` merge (primitives as a set, objects by
 * their merge key), every other list is replaced whole — plus the directives `$patch`
 * (replace/merge/delete), `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>`. The strategies come from the same schemas that drive OpenAPI,
 * so `x-kubernetes-patch-strategy` in the documents is exactly what this code follows. Member names
 * are ordinary keys (`__proto__` included): read and written as own properties only.
 */
import { ownValue, setOwn } from '../../../core/own.ts';
import type { Schema, SchemaSet } from './schema.ts';
import { badRequest } from './status.ts';

type Json = Record<string, unknown>;
type Resolved = Exclude<Schema, { $ref: string }>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

/** applyStrategicMergePatch returns `target` with `patch` applied following the schema `root`; neither argument is modified. */
export function applyStrategicMergePatch(target: unknown, patch: Json, root: string, schemas: SchemaSet): Json {
  const resolve = (schema: Schema | undefined): Resolved | undefined => {
    let current = schema;
    while (current !== undefined && '$ref' in current) current = schemas[current.$ref];
    return current;
  };

  const mergeMap = (original: unknown, delta: Json, schema: Resolved | undefined): Json | undefined => {
    const directive = delta['$patch'];
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return withoutDirectives(delta);
    if (directive !== undefined && directive !== 'merge') throw badRequest(`Unknown patch type: ${goValue(directive)} in map: ${goMap(delta)}`);
    let base: Json = isObject(original) ? { ...original } : {};
    const retain = delta['$retainKeys'];
    if (retain !== undefined) {
      if (!Array.isArray(retain)) throw badRequest(`invalid retainKeys directive: ${goValue(retain)}`);
      // Only string entries can name a key (Go compares the interface values).
      const keep = new Set(retain.filter((key): key is string => typeof key === 'string'));
      base = Object.fromEntries(Object.entries(base).filter(([key]) => keep.has(key)));
    }
    const propertyOf = (key: string): Resolved | undefined => {
      if (schema?.type === 'object') return resolve(ownValue(schema.properties, key));
      if (schema?.type === 'map') return resolve(schema.values);
      return undefined;
    };
    // Deletions from primitive lists and element orders apply after the list's own patch.
    const after: Array<() => void> = [];
    for (const [key, value] of Object.entries(delta)) {
      if (key === '$patch' || key === '$retainKeys') continue;
      if (key.startsWith(DELETE_FROM)) {
        const field = key.slice(DELETE_FROM.length);
        if (!Array.isArray(value)) throw badRequest(`invalid value for ${key}: must be a list`);
        after.push(() => {
          const current = ownValue(base, field);
          if (!Array.isArray(current)) return;
          const drop = new Set(value.map((item) => JSON.stringify(item)));
          setOwn(
            base,
            field,
            current.filter((item) => !drop.has(JSON.stringify(item))),
          );
        });
        continue;
      }
      if (key.startsWith(ORDER)) {
        const field = key.slice(ORDER.length);
        if (!Array.isArray(value)) throw badRequest(`invalid value for ${key}: must be a list`);
        const property = propertyOf(field);
        const mergeKey = property?.type === 'array' ? property.patchMergeKey : undefined;
        after.push(() => {
          const current = ownValue(base, field);
          if (Array.isArray(current)) setOwn(base, field, reorder(current, value, mergeKey));
        });
        continue;
      }
      if (value === null) {
        delete base[key];
        continue;
      }
      const property = propertyOf(key);
      if (property?.type === 'array' && Array.isArray(value)) {
        const merged = mergeList(ownValue(base, key), value, property, key);
        if (merged === undefined) delete base[key];
        else setOwn(base, key, merged);
        continue;
      }
      if (isObject(value) && (property === undefined || property.type === 'object' || property.type === 'map' || property.type === 'any')) {
        if (property?.type === 'any') {
          setOwn(base, key, value);
          continue;
        }
        const merged = mergeMap(ownValue(base, key), value, property);
        if (merged === undefined) delete base[key];
        else setOwn(base, key, merged);
        continue;
      }
      setOwn(base, key, value);
    }
    for (const step of after) step();
    return base;
  };

  const mergeList = (original: unknown, delta: unknown[], schema: Extract<Resolved, { type: 'array' }>, field: string): unknown[] | undefined => {
    const items = resolve(schema.items);
    const merging = schema.patchStrategy?.split(',').includes('merge') ?? false;
    // `[{"$patch": "replace"}, ...]` replaces the whole list with the other items, whatever the strategy.
    const replaceAll = delta.some((item) => isObject(item) && item['$patch'] === 'replace');
    if (replaceAll)
      return delta.filter((item) => !(isObject(item) && item['$patch'] === 'replace')).map((item) => (isObject(item) ? withoutDirectives(item) : item));
    if (!merging) return delta.map((item) => (isObject(item) ? withoutDirectives(item) : item));
    const base = Array.isArray(original) ? [...original] : [];
    if (items?.type !== 'object') {
      for (const item of delta) if (!base.some((existing) => JSON.stringify(existing) === JSON.stringify(item))) base.push(item);
      return base;
    }
    const mergeKey = schema.patchMergeKey;
    if (mergeKey === undefined) throw badRequest(`no merge key declared for list ${field}`);
    for (const item of delta) {
      if (!isObject(item))
        throw badRequest(`json: cannot unmarshal ${Array.isArray(item) ? 'array' : typeof item} into Go value of type map[string]interface {}`);
      if (!Object.hasOwn(item, mergeKey)) throw badRequest(`map: ${goMap(item)} does not contain declared merge key: ${mergeKey}`);
      const index = base.findIndex((existing) => isObject(existing) && JSON.stringify(existing[mergeKey]) === JSON.stringify(item[mergeKey]));
      if (item['$patch'] === 'delete') {
        if (index !== -1) base.splice(index, 1);
        continue;
      }
      const merged = mergeMap(index === -1 ? undefined : base[index], item, items);
      if (merged === undefined) continue;
      if (index === -1) base.push(merged);
      else base[index] = merged;
    }
    return base;
  };

  const result = mergeMap(target, patch, resolve({ $ref: root }));
  return result ?? {};
}

/** reorder puts the items named in `order` first, in that order; the rest keep their relative order after them. */
function reorder(list: readonly unknown[], order: readonly unknown[], mergeKey: string | undefined): unknown[] {
  const idOf = (item: unknown): string => JSON.stringify(mergeKey !== undefined && isObject(item) ? item[mergeKey] : item);
  const rank = new Map(order.map((entry, index) => [idOf(entry), index]));
  const listed = list.filter((item) => rank.has(idOf(item))).sort((a, b) => rank.get(idOf(a))! - rank.get(idOf(b))!);
  return [...listed, ...list.filter((item) => !rank.has(idOf(item)))];
}

function withoutDirectives(value: Json): Json {
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(ORDER) || key.startsWith(DELETE_FROM)) continue;
    setOwn(out, key, item);
  }
  return out;
}

/**
 * goValue prints a decoded JSON value the way Go's `%v` does (`map[a:1 b:x]`, `[a b]`, `<nil>`),
 * for the upstream error texts. It only ever formats JSON types it has checked, so a body value
 * such as `{"toString": []}` is printed as the map it is, never converted by JavaScript.
 */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isObject(value)) return goMap(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** goMap prints a map the way Go's `%v` does (`map[a:1 b:x]`), for the upstream error texts. */
function goMap(value: Json): string {
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${key}:${goValue(value[key])}`);
  return `map[${entries.join(' ')}]`;
}
