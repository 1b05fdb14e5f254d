/**
 * Pruning as the apiserver does it on every write and every read from storage
 * (apiextensions `apiserver/schema/pruning`): fields the schema does not specify are dropped
 * unless a `x-kubernetes-preserve-unknown-fields` node keeps them; the root's and embedded
 * resources' `apiVersion`, `kind` and `metadata` stay. Then, as the request decoder does, nulls
 * of non-nullable fields without a default are dropped, and embedded resources' metadata is
 * coerced to ObjectMeta (unknown keys dropped and reported, malformed ones dropped).
 */
import { ownValue, setOwn } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { OBJECT_META_FIELDS, objectMetaDecodeError } from './embedded-resources.ts';
import { cloneJson, isJsonObject, type JsonObject } from './json-values.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Which schema applies to the members of an object that are not among its properties (null: none, undefined: no additionalProperties). */
function additionalOf(schema: JSONSchemaProps): JSONSchemaProps | null | undefined {
  const additional = schema.additionalProperties;
  if (additional === undefined) return undefined;
  return typeof additional === 'object' ? additional : null;
}

const itemsOf = (schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined =>
  schema === undefined || Array.isArray(schema.items) ? undefined : schema.items;

class Pruner {
  readonly unknown: string[] = [];

  private record(parent: string, key: string): void {
    this.unknown.push(parent === '' ? key : `${parent}.${key}`);
  }

  prune(value: unknown, schema: JSONSchemaProps | undefined, path: string, embedded: boolean): unknown {
    if (schema?.['x-kubernetes-preserve-unknown-fields'] === true) return this.skip(value, schema, path, embedded);
    if (Array.isArray(value)) {
      const items = itemsOf(schema);
      return value.map((item, index) => this.prune(item, items, `${path}[${index}]`, items?.['x-kubernetes-embedded-resource'] === true));
    }
    if (!isJsonObject(value)) return value;
    const out: JsonObject = {};
    if (schema === undefined) {
      for (const key of Object.keys(value)) this.record(path, key);
      return out;
    }
    const additional = additionalOf(schema);
    for (const [key, item] of Object.entries(value)) {
      if (embedded && META_FIELDS.has(key)) {
        setOwn(out, key, cloneJson(item));
        continue;
      }
      const property = ownValue(schema.properties ?? {}, key);
      const child = path === '' ? key : `${path}.${key}`;
      if (property !== undefined) setOwn(out, key, this.prune(item, property, child, property['x-kubernetes-embedded-resource'] === true));
      else if (additional !== undefined)
        setOwn(out, key, this.prune(item, additional ?? undefined, child, additional?.['x-kubernetes-embedded-resource'] === true));
      else if (!META_FIELDS.has(key) || path !== '') this.record(path, key);
    }
    return out;
  }

  /** skip walks a preserve-unknown node: unknown members stay, known ones are still pruned below. */
  private skip(value: unknown, schema: JSONSchemaProps, path: string, embedded: boolean): unknown {
    if (Array.isArray(value)) {
      const items = itemsOf(schema);
      return value.map((item, index) =>
        items === undefined ? cloneJson(item) : this.skip(item, items, `${path}[${index}]`, items['x-kubernetes-embedded-resource'] === true),
      );
    }
    if (!isJsonObject(value)) return value;
    const out: JsonObject = {};
    const additional = additionalOf(schema);
    for (const [key, item] of Object.entries(value)) {
      const property = ownValue(schema.properties ?? {}, key);
      const child = path === '' ? key : `${path}.${key}`;
      if (embedded && META_FIELDS.has(key)) setOwn(out, key, cloneJson(item));
      else if (property !== undefined) setOwn(out, key, this.prune(item, property, child, property['x-kubernetes-embedded-resource'] === true));
      else if (additional !== undefined)
        setOwn(out, key, this.prune(item, additional ?? undefined, child, additional?.['x-kubernetes-embedded-resource'] === true));
      else setOwn(out, key, cloneJson(item));
    }
    return out;
  }
}

/** schemaForMember is the schema of an object member: its property, else additionalProperties. */
function schemaForMember(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (schema === undefined) return undefined;
  const property = ownValue(schema.properties ?? {}, key);
  if (property !== undefined) return property;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** dropNullsWithoutDefaults removes nulls where the schema allows none and has no default to put instead. */
function dropNullsWithoutDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  // Below a node the schema does not describe, no member has a schema, so nothing is dropped.
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    for (const item of value) dropNullsWithoutDefaults(item, items);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const member = schemaForMember(schema, key);
    const item = value[key];
    if (item === null && member !== undefined && member.nullable !== true && member.default === undefined) delete value[key];
    else dropNullsWithoutDefaults(item, member);
  }
}

/** coerceEmbeddedMetadata keeps only ObjectMeta's own, well-typed fields in nested resources' metadata; unknown keys are reported. */
function coerceEmbeddedMetadata(value: unknown, schema: JSONSchemaProps | undefined, path: string, root: boolean, unknown: string[]): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    value.forEach((item, index) => {
      coerceEmbeddedMetadata(item, items, `${path}[${index}]`, false, unknown);
    });
    return;
  }
  if (!isJsonObject(value)) return;
  if (!root && schema['x-kubernetes-embedded-resource'] === true && isJsonObject(value.metadata)) {
    const metadata = value.metadata;
    for (const key of Object.keys(metadata)) {
      if (ownValue(OBJECT_META_FIELDS, key) === undefined) {
        unknown.push(`${path === '' ? '' : `${path}.`}metadata.${key}`);
        delete metadata[key];
      } else if (objectMetaDecodeError({ [key]: metadata[key] }) !== undefined) {
        delete metadata[key];
      }
    }
  }
  const properties = schema.properties ?? {};
  for (const [key, item] of Object.entries(value)) {
    if (ownValue(properties, key) !== undefined) coerceEmbeddedMetadata(item, ownValue(properties, key), path === '' ? key : `${path}.${key}`, false, unknown);
    else if (typeof schema.additionalProperties === 'object') coerceEmbeddedMetadata(item, schema.additionalProperties, `${path}[${key}]`, false, unknown);
  }
}

/**
 * pruneCustomObject returns a new object without the fields the schema does not know, and their
 * paths as the apiserver words them (`spec.foo`, `spec.items[0].bar`; sorted, then embedded
 * metadata's), for `Warning: unknown field "spec.foo"` and Strict's 400.
 */
export function pruneCustomObject(schema: JSONSchemaProps, object: Record<string, unknown>): { object: Record<string, unknown>; unknownFields: string[] } {
  const pruner = new Pruner();
  const pruned = pruner.prune(object, schema, '', true) as JsonObject;
  const unknownFields = pruner.unknown.sort();
  dropNullsWithoutDefaults(pruned, schema);
  coerceEmbeddedMetadata(pruned, schema, '', true, unknownFields);
  return { object: pruned, unknownFields };
}

/** pruneValue prunes one value against a schema node as `pruning.Prune` does (no null dropping, no metadata coercion), e.g. a `default`. */
export function pruneValue(value: unknown, schema: JSONSchemaProps, isResourceRoot: boolean): unknown {
  return new Pruner().prune(value, schema, '', isResourceRoot || schema['x-kubernetes-embedded-resource'] === true);
}
