/**
 * managedFields for non-apply writes (operation `Update`): which manager wrote which fields, as
 * a FieldsV1 trie derived from the object and its schema (atomic lists and atomic maps are owned
 * as one unit, e.g. `f:rules: {}`). Server-side apply conflicts come with part 2; this keeps the
 * entries real clients display and round-trip.
 */
import { ownValue, setOwn } from '../../../core/own.ts';
import type { KubeObject, ManagedFieldsEntry } from './object-meta.ts';
import { valueAtPath } from './field-set.ts';
import type { Schema, SchemaSet } from './schema.ts';

const TRACKED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

/** fieldsOf builds the FieldsV1 trie of an object's set fields. */
export function fieldsOf(object: KubeObject, schemaName: string, schemas: SchemaSet): Record<string, unknown> {
  const resolve = (schema: Schema): Exclude<Schema, { $ref: string }> => {
    let current = schema;
    while ('$ref' in current) current = schemas[current.$ref]!;
    return current;
  };
  const walk = (value: unknown, schema: Schema | undefined, member: boolean): Record<string, unknown> => {
    // Scalars, atomic lists and atomic structs are owned as one unit: an empty node.
    const node: Record<string, unknown> = member ? { '.': {} } : {};
    if (schema === undefined || value === null || typeof value !== 'object') return {};
    const s = resolve(schema);
    if (s.type === 'object' && s.mapType !== 'atomic') {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) node[`f:${key}`] = walk(item, ownValue(s.properties, key), true);
      return node;
    }
    if (s.type === 'map') {
      for (const key of Object.keys(value as Record<string, unknown>)) node[`f:${key}`] = {};
      return node;
    }
    if (s.type === 'array' && s.listType === 'map') {
      // Keyed items, as server-side apply names them (`k:{"uid":"…"}`), so Update and Apply entries agree.
      for (const item of value as unknown[]) node[keyStep(item, s.listMapKeys ?? [], s.listMapKeyDefaults)] = walk(item, s.items, true);
      return node;
    }
    if (s.type === 'array' && s.listType === 'set') {
      for (const item of value as unknown[]) node[`v:${JSON.stringify(item)}`] = {};
      return node;
    }
    return {};
  };
  const root = resolve({ $ref: schemaName });
  const out: Record<string, unknown> = {};
  if (root.type !== 'object') return out;
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key === 'metadata') {
      const metaFields: Record<string, unknown> = {};
      const metaSchema = resolve(root.properties['metadata']!);
      for (const [metaKey, metaValue] of Object.entries(value as Record<string, unknown>)) {
        if (!TRACKED_METADATA.has(metaKey) || metaSchema.type !== 'object') continue;
        metaFields[`f:${metaKey}`] = walk(metaValue, metaSchema.properties[metaKey], true);
      }
      if (Object.keys(metaFields).length > 0) out['f:metadata'] = metaFields;
      continue;
    }
    // Unset fields (Go writes zero times as null and empty structs as {}) are owned by no one.
    if (value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0)) continue;
    out[`f:${key}`] = walk(value, root.properties[key], true);
  }
  return out;
}

/**
 * recordUpdate moves ownership of the fields this write set or changed to `manager` (an Update
 * never conflicts: it simply takes them), leaving other managers the fields they still hold.
 */
export function recordUpdate(
  previous: readonly ManagedFieldsEntry[] | undefined,
  manager: string,
  apiVersion: string,
  time: string,
  next: { readonly object: KubeObject; readonly fields: Record<string, unknown> },
  old: { readonly object: KubeObject; readonly fields: Record<string, unknown> } | undefined,
): ManagedFieldsEntry[] {
  // A first write with no entries to carry owns every field it set: its trie is the object's.
  if (old === undefined && (previous === undefined || previous.length === 0)) {
    return Object.keys(next.fields).length === 0 ? [] : [{ manager, operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: next.fields }];
  }
  const nextLeaves = leafPaths(next.fields);
  const oldLeaves = new Set(old === undefined ? [] : leafPaths(old.fields));
  const changed = new Set(
    nextLeaves.filter((path) => !oldLeaves.has(path) || JSON.stringify(valueAt(next.object, path)) !== JSON.stringify(valueAt(old!.object, path))),
  );
  const present = new Set(nextLeaves);
  const entries: ManagedFieldsEntry[] = [];
  let mine = new Set(changed);
  for (const entry of previous ?? []) {
    // An entry without a field set (a null list item decodes to an empty entry) owns nothing, and goes.
    const kept = leafPaths(entry.fieldsV1 ?? {}).filter((path) => present.has(path));
    if (entry.manager === manager && entry.operation === 'Update' && entry.subresource === undefined) {
      mine = new Set([...kept, ...changed]);
      continue;
    }
    const remaining = kept.filter((path) => !changed.has(path));
    if (remaining.length > 0) entries.push({ ...entry, fieldsV1: trieOf(remaining) });
  }
  if (mine.size > 0) entries.push({ manager, operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: trieOf([...mine]) });
  return entries;
}

const SEP = '\u0001';

function leafPaths(trie: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(trie)) {
    const path = prefix === '' ? key : `${prefix}${SEP}${key}`;
    const nested = child as Record<string, unknown>;
    if (Object.keys(nested).length === 0) out.push(path);
    else out.push(...leafPaths(nested, path));
  }
  return out;
}

function valueAt(object: unknown, path: string): unknown {
  if (path.startsWith('k:') || path.includes(`${SEP}k:`)) return valueAtPath(object, path);
  let current: unknown = object;
  for (const step of path.split(SEP)) {
    if (step === '.') return true;
    if (step.startsWith('v:')) return step;
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[step.slice(2)];
  }
  return current;
}

function trieOf(paths: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    let node = root;
    for (const step of path.split(SEP)) {
      node[step] ??= {};
      node = node[step] as Record<string, unknown>;
    }
  }
  return root;
}

function keyStep(item: unknown, keys: readonly string[], defaults: Readonly<Record<string, unknown>> | undefined): string {
  const key: Record<string, unknown> = {};
  for (const name of keys) {
    const value = item !== null && typeof item === 'object' ? ((item as Record<string, unknown>)[name] ?? defaults?.[name]) : undefined;
    if (value !== undefined) key[name] = value;
  }
  return `k:${JSON.stringify(key)}`;
}

/** managerFromUserAgent is the default field manager: the User-Agent up to its first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const value = (userAgent ?? '').split('/')[0] ?? '';
  return value === '' ? 'unknown' : value.slice(0, 128);
}

type Json = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * readFieldSet reads a FieldsV1 trie as structured-merge-diff's `Set.FromJSON` does: `null` is an
 * empty set, `.` marks membership whatever its value, keys of unknown kinds are dropped, and a
 * value that is not an object or a malformed `v:`/`k:`/`i:` key is an error (undefined here).
 */
function readFieldSet(value: unknown): Json | undefined {
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) return undefined;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '.') {
      out['.'] = {};
      continue;
    }
    const kind = key.slice(0, 2);
    const rest = key.slice(2);
    if (kind === 'v:' || kind === 'k:') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rest);
      } catch {
        return undefined;
      }
      if (kind === 'k:' && !isPlainObject(parsed)) return undefined;
    } else if (kind === 'i:') {
      if (!/^[+-]?\d+$/.test(rest) || !Number.isSafeInteger(Number(rest))) return undefined;
    } else if (kind !== 'f:') {
      continue;
    }
    const nested = readFieldSet(child);
    if (nested === undefined) return undefined;
    setOwn(out, key, nested);
  }
  return out;
}

/**
 * decodeManagedFields checks request entries as the apiserver's DecodeManagedFields does:
 * operation `Apply` or `Update`, a non-empty apiVersion, fieldsType `FieldsV1` and a readable
 * fieldsV1. Any bad entry makes the whole list undecodable (undefined). Entries naming the same
 * manager (manager, operation, subresource, and apiVersion for updates) collapse to the last one,
 * as they do in the apiserver's map.
 */
export function decodeManagedFields(entries: readonly unknown[]): ManagedFieldsEntry[] | undefined {
  const byManager = new Map<string, ManagedFieldsEntry>();
  for (const entry of entries) {
    if (!isPlainObject(entry)) return undefined;
    const operation = entry['operation'];
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    const apiVersion = entry['apiVersion'];
    if (typeof apiVersion !== 'string' || apiVersion === '') return undefined;
    if (entry['fieldsType'] !== 'FieldsV1') return undefined;
    const fieldsV1 = readFieldSet(entry['fieldsV1']);
    if (fieldsV1 === undefined) return undefined;
    const manager = typeof entry['manager'] === 'string' ? entry['manager'] : '';
    const subresource = typeof entry['subresource'] === 'string' && entry['subresource'] !== '' ? entry['subresource'] : undefined;
    const time = typeof entry['time'] === 'string' ? entry['time'] : undefined;
    const identity = JSON.stringify([manager, operation, operation === 'Apply' ? '' : apiVersion, subresource ?? '']);
    byManager.delete(identity);
    byManager.set(identity, {
      manager,
      operation,
      apiVersion,
      ...(time === undefined ? {} : { time }),
      fieldsType: 'FieldsV1',
      fieldsV1,
      ...(subresource === undefined ? {} : { subresource }),
    } as ManagedFieldsEntry);
  }
  return [...byManager.values()];
}

/** isZeroEntry says whether a decoded entry is Go's zero ManagedFieldsEntry (every field empty). */
function isZeroEntry(entry: unknown): boolean {
  if (!isPlainObject(entry)) return entry === null;
  return Object.values(entry).every((value) => value === '' || value === null || value === undefined);
}

/**
 * startingManagedFields picks the entries a create or update starts from, as the apiserver's field
 * manager does (`decodeLiveOrNew`): `[]` or `[{}]` in the request resets them; request entries
 * that decode, and are not empty, replace the stored ones; anything else (absent, or entries that
 * do not decode) keeps the stored ones, so clients unaware of managedFields never drop them. A
 * bad request list is therefore never an error: the apiserver ignores it too.
 */
export function startingManagedFields(requested: readonly unknown[] | undefined, live: readonly ManagedFieldsEntry[] | undefined): ManagedFieldsEntry[] {
  if (requested !== undefined && (requested.length === 0 || (requested.length === 1 && isZeroEntry(requested[0])))) return [];
  const decoded = requested === undefined ? undefined : decodeManagedFields(requested);
  if (decoded !== undefined && decoded.length > 0) return decoded;
  return decodeManagedFields(live ?? []) ?? [];
}
