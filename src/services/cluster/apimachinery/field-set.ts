/**
 * Field sets for server-side apply (structured-merge-diff's `fieldpath.Set`): a field path is a
 * list of FieldsV1 steps — `f:<name>` for struct and map fields, `k:{"key":"value"}` for items of
 * a list keyed by its map keys, `v:<json>` for items of a set, `.` for "the node itself" — and a
 * set of paths is stored as the FieldsV1 trie managedFields carry. List and map types come from
 * the schema (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`).
 */
import { ownValue } from '../../../core/own.ts';
import type { Schema, SchemaSet } from './schema.ts';

type Json = Record<string, unknown>;
type Resolved = Exclude<Schema, { $ref: string }>;

/** SEP joins the steps of one path into a set key. */
export const SEP = '\u0001';

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Metadata fields that are tracked (upstream strips name, namespace, uid, times and the rest). */
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

/** SchemaWalker resolves schemas and names list items for one schema set. */
export class SchemaWalker {
  constructor(readonly schemas: SchemaSet) {}

  /** resolve follows `$ref`s. */
  resolve(schema: Schema | undefined): Resolved | undefined {
    let current = schema;
    while (current !== undefined && '$ref' in current) current = this.schemas[current.$ref];
    return current;
  }

  /** child is the schema under one step of a node with schema `schema`. */
  child(schema: Resolved | undefined, step: string): Resolved | undefined {
    if (schema === undefined) return undefined;
    if (step.startsWith('f:')) {
      if (schema.type === 'object') return this.resolve(ownValue(schema.properties, step.slice(2)));
      if (schema.type === 'map') return this.resolve(schema.values);
      return undefined;
    }
    if (schema.type === 'array') return this.resolve(schema.items);
    return undefined;
  }

  /** itemStep names one list item: `k:{...}` for map lists, `v:<json>` for sets; undefined for atomic lists. */
  itemStep(schema: Extract<Resolved, { type: 'array' }>, item: unknown): string | undefined {
    if (schema.listType === 'map' && isObject(item)) {
      const key: Json = {};
      for (const name of schema.listMapKeys ?? []) {
        const value = item[name] ?? schema.listMapKeyDefaults?.[name];
        if (value !== undefined) key[name] = value;
      }
      return `k:${JSON.stringify(key)}`;
    }
    if (schema.listType === 'set') return `v:${JSON.stringify(item)}`;
    return undefined;
  }

  /** granular is true when a node's children are owned one by one (not atomic). */
  granular(schema: Resolved | undefined): boolean {
    if (schema === undefined) return false;
    if (schema.type === 'object') return schema.mapType !== 'atomic';
    if (schema.type === 'map') return true;
    if (schema.type === 'array') return schema.listType === 'set' || schema.listType === 'map';
    return false;
  }
}

/**
 * pathsOf lists the field paths an object sets: every leaf (scalars and atomic nodes), each list
 * item's `.`, and, with `containers`, the `.` of every granular struct or map (how a full object
 * is compared, so a map appearing or disappearing is a change of its own).
 */
export function pathsOf(object: Json, root: string, walker: SchemaWalker, containers: boolean): string[] {
  const out: string[] = [];
  const walk = (value: unknown, schema: Resolved | undefined, prefix: string, member: boolean): void => {
    if (!walker.granular(schema) || value === null || typeof value !== 'object') {
      out.push(prefix);
      return;
    }
    const entries: Array<[string, unknown, Resolved | undefined]> = [];
    if (schema!.type === 'array') {
      for (const item of value as unknown[]) {
        const step = walker.itemStep(schema!, item);
        if (step === undefined) continue;
        const itemSchema = walker.resolve(schema!.items);
        const itemPath = `${prefix}${SEP}${step}`;
        if (step.startsWith('v:') || !walker.granular(itemSchema) || !isObject(item)) {
          out.push(itemPath);
          continue;
        }
        out.push(`${itemPath}${SEP}.`);
        for (const [key, child] of Object.entries(item)) entries.push([`${step}${SEP}f:${key}`, child, walker.child(itemSchema, `f:${key}`)]);
      }
      for (const [step, child, childSchema] of entries) walk(child, childSchema, `${prefix}${SEP}${step}`, true);
      return;
    }
    if (containers && member) out.push(`${prefix}${SEP}.`);
    const fields = Object.entries(value as Json);
    if (fields.length === 0 && !containers) out.push(prefix);
    for (const [key, child] of fields) walk(child, walker.child(schema, `f:${key}`), `${prefix}${SEP}f:${key}`, true);
  };
  const rootSchema = walker.resolve({ $ref: root });
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key === 'metadata') {
      if (!isObject(value)) continue;
      const metaSchema = walker.child(rootSchema, 'f:metadata');
      for (const [metaKey, metaValue] of Object.entries(value)) {
        if (!OWNED_METADATA.has(metaKey)) continue;
        walk(metaValue, walker.child(metaSchema, `f:${metaKey}`), `f:metadata${SEP}f:${metaKey}`, true);
      }
      continue;
    }
    // Unset fields (Go writes zero times as null) are owned by no one.
    if (value === null) continue;
    walk(value, walker.child(rootSchema, `f:${key}`), `f:${key}`, true);
  }
  return out;
}

/** leafPathsOfTrie reads a FieldsV1 trie as its set of paths. */
export function leafPathsOfTrie(trie: Json, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(trie)) {
    const path = prefix === '' ? key : `${prefix}${SEP}${key}`;
    if (!isObject(child) || Object.keys(child).length === 0) out.push(path);
    else out.push(...leafPathsOfTrie(child, path));
  }
  return out;
}

/** trieOfPaths writes a set of paths as a FieldsV1 trie (keys sorted, as the real server serialises sets). */
export function trieOfPaths(paths: Iterable<string>): Json {
  const root: Json = {};
  for (const path of [...paths].sort()) {
    let node = root;
    for (const step of path.split(SEP)) {
      node[step] ??= {};
      node = node[step] as Json;
    }
  }
  return root;
}

/** valueAtPath reads the value a path names (for `.`, whether the node exists); undefined when absent. */
export function valueAtPath(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const step of path.split(SEP)) {
    if (current === undefined || current === null) return undefined;
    if (step === '.') return true;
    if (step.startsWith('f:')) {
      if (!isObject(current)) return undefined;
      current = ownValue(current, step.slice(2));
    } else if (step.startsWith('k:')) {
      if (!Array.isArray(current)) return undefined;
      current = current.find((item) => matchesKey(item, step));
    } else if (step.startsWith('v:')) {
      if (!Array.isArray(current)) return undefined;
      const wanted = step.slice(2);
      return current.some((item) => JSON.stringify(item) === wanted) ? true : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

function matchesKey(item: unknown, step: string): boolean {
  const key = JSON.parse(step.slice(2)) as Json;
  return isObject(item) && Object.entries(key).every(([name, value]) => JSON.stringify(item[name]) === JSON.stringify(value));
}

/** removePath deletes what a path names from `object` (in place): a field, a keyed item or a set member. */
export function removePath(object: Json, path: string): void {
  const steps = path.split(SEP);
  if (steps[steps.length - 1] === '.') steps.pop();
  const last = steps.pop();
  if (last === undefined) return;
  const parent = valueAtPath(object, steps.join(SEP));
  if (steps.length > 0 && parent === undefined) return;
  const container = steps.length === 0 ? object : parent;
  if (last.startsWith('f:')) {
    if (!isObject(container)) return;
    delete container[last.slice(2)];
    if (Object.keys(container).length > 0) return;
  } else {
    if (!Array.isArray(container)) return;
    const index = last.startsWith('v:')
      ? container.findIndex((item) => JSON.stringify(item) === last.slice(2))
      : container.findIndex((item) => matchesKey(item, last));
    if (index !== -1) container.splice(index, 1);
    if (container.length > 0) return;
  }
  // A map or list the removal emptied goes too (structured-merge-diff keeps no empty containers); metadata stays.
  if (steps.length > 0 && steps.join(SEP) !== 'f:metadata') removePath(object, steps.join(SEP));
}

/** pathText prints a path as structured-merge-diff does in conflict messages: `.metadata.labels.app`, `.rules`, `[uid="x"]`, `[="a"]`. */
export function pathText(path: string): string {
  let out = '';
  for (const step of path.split(SEP)) {
    if (step === '.') continue;
    if (step.startsWith('f:')) out += `.${step.slice(2)}`;
    else if (step.startsWith('k:')) {
      const key = JSON.parse(step.slice(2)) as Json;
      out += `[${Object.entries(key)
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
        .join(',')}]`;
    } else if (step.startsWith('v:')) out += `[=${step.slice(2)}]`;
  }
  return out;
}
