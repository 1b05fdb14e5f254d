/**
 * A custom resource's schema as the server-side apply code sees wire types (`apimachinery/schema.ts`
 * Schema): objects, maps (additionalProperties), lists with their `x-kubernetes-list-type` and
 * `x-kubernetes-list-map-keys` (key defaults kept, as structured-merge-diff keys items by them),
 * atomic maps and structs (`x-kubernetes-map-type: atomic`), int-or-string, and free JSON for
 * untyped and preserve-unknown nodes. The root gets `apiVersion`, `kind` and the shared ObjectMeta,
 * so managedFields of custom resources are tracked exactly like those of built-in kinds.
 */
import { setOwn } from '../../../../core/own.ts';
import type { Schema, SchemaSet } from '../../apimachinery/schema.ts';
import { META_SCHEMAS, OBJECT_META, TYPE_FIELDS } from '../../resources/meta-schemas.ts';
import type { JSONSchemaProps } from '../types.ts';

const describe = (node: JSONSchemaProps): { description?: string } => (node.description === undefined ? {} : { description: node.description });

function convert(node: JSONSchemaProps, goName: string): Schema {
  if (node['x-kubernetes-int-or-string'] === true) return { type: 'int-or-string', goType: 'intstr.IntOrString', ...describe(node) };
  const hasProperties = node.properties !== undefined && Object.keys(node.properties).length > 0;
  if (node['x-kubernetes-preserve-unknown-fields'] === true && !hasProperties) return { type: 'any', ...describe(node) };
  switch (node.type) {
    case 'object':
      return convertObject(node, goName);
    case 'array': {
      const items = node.items === undefined || Array.isArray(node.items) ? ({ type: 'any' } as const) : convert(node.items, goName);
      const listType = node['x-kubernetes-list-type'];
      const keys = node['x-kubernetes-list-map-keys'];
      const keyDefaults: Record<string, string | number | boolean> = {};
      if (listType === 'map' && keys !== undefined && node.items !== undefined && !Array.isArray(node.items)) {
        for (const key of keys) {
          const fallback = node.items.properties?.[key]?.default;
          if (typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean') setOwn(keyDefaults, key, fallback);
        }
      }
      return {
        type: 'array',
        items,
        ...(listType === 'atomic' || listType === 'set' || listType === 'map' ? { listType } : {}),
        ...(listType === 'map' && keys !== undefined ? { listMapKeys: [...keys] } : {}),
        ...(Object.keys(keyDefaults).length > 0 ? { listMapKeyDefaults: keyDefaults } : {}),
        ...describe(node),
      };
    }
    case 'string':
      return { type: 'string', ...describe(node) };
    case 'integer':
      return { type: 'integer', format: node.format === 'int32' ? 'int32' : 'int64', ...describe(node) };
    case 'number':
      return { type: 'number', format: 'double', ...describe(node) };
    case 'boolean':
      return { type: 'boolean', ...describe(node) };
    default:
      return hasProperties ? convertObject(node, goName) : { type: 'any', ...describe(node) };
  }
}

function convertObject(node: JSONSchemaProps, goName: string): Schema {
  const atomic = node['x-kubernetes-map-type'] === 'atomic';
  const additional = node.additionalProperties;
  const hasProperties = node.properties !== undefined && Object.keys(node.properties).length > 0;
  if (!hasProperties && typeof additional === 'object') {
    // Schema has no atomic map; free JSON is owned as a whole, which is what atomic means.
    return atomic ? { type: 'any', ...describe(node) } : { type: 'map', values: convert(additional, goName), ...describe(node) };
  }
  if (!hasProperties && additional === true) return { type: 'any', ...describe(node) };
  const properties: Record<string, Schema> = {};
  for (const [key, property] of Object.entries(node.properties ?? {})) setOwn(properties, key, convert(property, goName));
  if (node['x-kubernetes-embedded-resource'] === true) {
    for (const [key, field] of Object.entries(TYPE_FIELDS)) if (!Object.hasOwn(properties, key) || key === 'metadata') setOwn(properties, key, field);
  }
  return {
    type: 'object',
    goName,
    properties,
    ...(node.required === undefined || node.required.length === 0 ? {} : { required: [...node.required] }),
    ...(atomic ? { mapType: 'atomic' as const } : {}),
    ...describe(node),
  };
}

/** ssaSchemaSet converts a custom resource's schema into the SchemaSet server-side apply walks, the root under `rootName`. */
export function ssaSchemaSet(schema: JSONSchemaProps, rootName: string): SchemaSet {
  const goName = rootName.slice(rootName.lastIndexOf('.') + 1);
  // The root is always a granular object (additionalProperties and an atomic root are refused on the CRD).
  const { 'x-kubernetes-map-type': _mapType, additionalProperties: _additional, ...rest } = schema;
  const root = convertObject({ ...rest, type: 'object' }, goName) as Extract<Schema, { type: 'object' }>;
  const properties: Record<string, Schema> = { ...root.properties };
  setOwn(properties, 'apiVersion', TYPE_FIELDS.apiVersion!);
  setOwn(properties, 'kind', TYPE_FIELDS.kind!);
  setOwn(properties, 'metadata', { $ref: OBJECT_META });
  const out: Record<string, Schema> = { ...META_SCHEMAS };
  setOwn(out, rootName, { ...root, properties });
  return out;
}
