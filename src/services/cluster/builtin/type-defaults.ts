/**
 * The apiserver's type-directed defaulting of built-in objects: as the generated
 * `zz_generated.defaults.go` of each group-version does, every `SetDefaults_<Type>` of
 * `pkg/apis/<group>/<version>/defaults.go` (and the `+default=` markers of k8s.io/api's types)
 * runs on every value of its type wherever the object holds one — a Volume in a Pod, a PodTemplate,
 * a Deployment's or a CronJob's job template alike — parent before children, on create and update.
 * The functions themselves are in set-defaults.ts, by the OpenAPI component name of their type.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { SET_DEFAULTS } from './set-defaults.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** reachesDefaults memoises, per schema set and component name, whether any defaulted type is reachable from it. */
const reach = new WeakMap<SchemaSet, Map<string, boolean>>();

function reaches(schemas: SchemaSet, name: string, seen: Set<string> = new Set()): boolean {
  let memo = reach.get(schemas);
  if (memo === undefined) {
    memo = new Map();
    reach.set(schemas, memo);
  }
  const known = memo.get(name);
  if (known !== undefined) return known;
  if (seen.has(name)) return false;
  seen.add(name);
  const schema = schemas[name];
  const result = SET_DEFAULTS[name] !== undefined || (schema !== undefined && schemaReaches(schemas, schema, seen));
  memo.set(name, result);
  return result;
}

function schemaReaches(schemas: SchemaSet, schema: Schema, seen: Set<string>): boolean {
  if ('$ref' in schema) return reaches(schemas, schema.$ref, seen);
  switch (schema.type) {
    case 'object':
      return Object.values(schema.properties).some((property) => schemaReaches(schemas, property, seen));
    case 'array':
      return schemaReaches(schemas, schema.items, seen);
    case 'map':
      return schemaReaches(schemas, schema.values, seen);
    default:
      return false;
  }
}

function walk(value: unknown, schema: Schema, schemas: SchemaSet): void {
  if ('$ref' in schema) {
    const name = schema.$ref;
    if (!isRecord(value) || !reaches(schemas, name)) return;
    SET_DEFAULTS[name]?.(value);
    const target = schemas[name];
    if (target !== undefined) walk(value, target, schemas);
    return;
  }
  switch (schema.type) {
    case 'object':
      if (!isRecord(value)) return;
      for (const [key, property] of Object.entries(schema.properties)) {
        if (Object.hasOwn(value, key)) walk(value[key], property, schemas);
      }
      return;
    case 'array':
      if (Array.isArray(value)) for (const item of value) walk(item, schema.items, schemas);
      return;
    case 'map':
      if (isRecord(value)) for (const item of Object.values(value)) walk(item, schema.values, schemas);
      return;
    default:
      return;
  }
}

/** applyTypeDefaults defaults `object` (in place; the request's own copy) as a value of the component `schemaName`. */
export function applyTypeDefaults(object: Json, schemaName: string, schemas: SchemaSet): void {
  walk(object, { $ref: schemaName }, schemas);
}
