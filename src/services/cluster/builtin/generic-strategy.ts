/**
 * One strategy for every built-in kind, driven by its schema: required fields and enums from the
 * OpenAPI document, `metadata.generation` for kinds with a spec, `status` kept off the main
 * resource for kinds with a status subresource, and the kind's thin behaviour file on top.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy } from '../apimachinery/strategy.ts';
import { AGE_COLUMN, type BuiltinObject, type KindBehaviour, NAME_COLUMN } from './behaviour.ts';
import type { BuiltinKind } from './kinds.ts';
import { validateSchemaRules } from './schema-validation.ts';
import { applyTypeDefaults } from './type-defaults.ts';

/** specOf is everything outside metadata and status, whose change bumps `generation`. */
function specOf(object: BuiltinObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = object;
  // Keys sorted at every level: a decoded body and the stored object may order them differently.
  return JSON.stringify(rest, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** ownNested copies the fields outside metadata, so defaults written into them never touch objects the body shares with stored state. */
function ownNested(object: BuiltinObject): void {
  for (const key of Object.keys(object)) if (key !== 'metadata' && typeof object[key] === 'object') object[key] = structuredClone(object[key]);
}

/** statusRules are the behaviours' `validateStatusUpdate`, by the strategy built with them (read by statusStrategy). */
const statusRules = new WeakMap<ResourceStrategy<BuiltinObject>, NonNullable<KindBehaviour['validateStatusUpdate']>>();

/** genericStrategy builds the strategy of one built-in kind. */
export function genericStrategy(entry: BuiltinKind, schemaName: string, schemas: SchemaSet, behaviour: KindBehaviour): ResourceStrategy<BuiltinObject> {
  const strategy = genericStrategyOf(entry, schemaName, schemas, behaviour);
  if (behaviour.validateStatusUpdate !== undefined) statusRules.set(strategy, behaviour.validateStatusUpdate);
  return strategy;
}

function genericStrategyOf(entry: BuiltinKind, schemaName: string, schemas: SchemaSet, behaviour: KindBehaviour): ResourceStrategy<BuiltinObject> {
  const validate = (object: BuiltinObject, own = behaviour.validate?.(object) ?? []) => {
    // Where the kind's Go rule words a field's error itself, the schema's version of it is dropped.
    const worded = new Set(own.map((error) => error.field));
    return [...validateSchemaRules(object, schemaName, schemas).filter((error) => !worded.has(error.field)), ...own];
  };
  return {
    namespaced: entry.namespaced,
    nameRule: behaviour.nameRule ?? 'dns-subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: behaviour.allowUnconditionalUpdate ?? true,
    invalidKind: { group: entry.group, kind: entry.kind },
    prepareForCreate(object, request) {
      ownNested(object);
      // With a status subresource, a new object's status is the server's, not the client's.
      if (entry.status) delete object['status'];
      if (entry.generation) object.metadata.generation = 1;
      behaviour.prepareForCreate?.(object, request);
      applyTypeDefaults(object, schemaName, schemas);
    },
    prepareForUpdate(object, old, request) {
      ownNested(object);
      if (entry.status) {
        if (old['status'] === undefined) delete object['status'];
        else object['status'] = old['status'];
      }
      const generation = old.metadata.generation;
      if (generation !== undefined) object.metadata.generation = generation;
      else delete object.metadata.generation;
      behaviour.prepareForUpdate?.(object, old, request);
      applyTypeDefaults(object, schemaName, schemas);
      if (entry.generation && specOf(object) !== specOf(old)) object.metadata.generation = (generation ?? 0) + 1;
    },
    validate: (object) => validate(object),
    validateUpdate: (object, old) =>
      behaviour.validateOnUpdate !== undefined
        ? validate(object, behaviour.validateOnUpdate(object, old))
        : [...validate(object), ...(behaviour.validateUpdate?.(object, old) ?? [])],
    warnings: () => [],
    canonicalize: () => undefined,
    tableColumns: behaviour.tableColumns ?? [NAME_COLUMN, AGE_COLUMN],
    tableRow: behaviour.tableRow ?? ((object, now) => [object.metadata.name ?? '', ageSince(object.metadata.creationTimestamp, now)]),
  };
}

/** keepStatusOnly turns a `/status` write into the stored object with the body's `status` (and managedFields), changing `object` in place; shared by the built-in kinds and custom resources. */
export function keepStatusOnly(object: KubeObject, old: KubeObject): void {
  const status = object['status'];
  const managedFields = object.metadata.managedFields;
  for (const key of Object.keys(object)) delete object[key];
  Object.assign(object, structuredClone(old));
  object.metadata = { ...object.metadata, ...(managedFields === undefined ? {} : { managedFields }) };
  if (status === undefined) delete object['status'];
  else object['status'] = status;
}

/**
 * statusStrategy is the `/status` subresource's strategy: an update changes `status` alone (the
 * rest of the body, metadata included, is the stored object's but for managedFields), and never
 * bumps `generation`, as the apiserver's status strategies do.
 */
export function statusStrategy(main: ResourceStrategy<BuiltinObject>): ResourceStrategy<BuiltinObject> {
  return {
    ...main,
    prepareForCreate: () => undefined,
    prepareForUpdate: keepStatusOnly,
    validateUpdate: (object, old, request) => {
      const ownStatusRules = statusRules.get(main);
      return ownStatusRules === undefined ? main.validate(object, request) : ownStatusRules(object, old);
    },
  };
}
