import type { Schema, SchemaSet } from '../../apimachinery/schema.ts';
import { OBJECT_META } from '../../resources/meta-schemas.ts';
import type { JSONSchemaProps } from '../types.ts';

// Until crd-schema's conversion lands: the engine's placeholder.
/** ssaSchemaSet (placeholder) converts the schema into the registry's Schema types. */
export function ssaSchemaSet(schema: JSONSchemaProps, rootName: string): SchemaSet {
  const convert = (node: JSONSchemaProps, goName: string): Schema => {
    if (node['x-kubernetes-int-or-string'] === true) return { type: 'int-or-string', goType: 'intstr.IntOrString' };
    if (node['x-kubernetes-preserve-unknown-fields'] === true && node.properties === undefined) return { type: 'any' };
    switch (node.type) {
      case 'object': {
        if (typeof node.additionalProperties === 'object') return { type: 'map', values: convert(node.additionalProperties, goName) };
        if (node.properties === undefined) return { type: 'any' };
        const properties: Record<string, Schema> = {};
        for (const [key, property] of Object.entries(node.properties)) properties[key] = convert(property, goName);
        return { type: 'object', goName, properties, ...(node['x-kubernetes-map-type'] === 'atomic' ? { mapType: 'atomic' as const } : {}) };
      }
      case 'array': {
        const items = Array.isArray(node.items) || node.items === undefined ? { type: 'any' as const } : convert(node.items, goName);
        const listType = node['x-kubernetes-list-type'];
        return {
          type: 'array',
          items,
          ...(listType === 'atomic' || listType === 'set' || listType === 'map' ? { listType } : {}),
          ...(node['x-kubernetes-list-map-keys'] === undefined ? {} : { listMapKeys: node['x-kubernetes-list-map-keys'] }),
        };
      }
      case 'string':
        return { type: 'string' };
      case 'integer':
        return { type: 'integer', format: 'int64' };
      case 'number':
        return { type: 'number', format: 'double' };
      case 'boolean':
        return { type: 'boolean' };
      default:
        return { type: 'any' };
    }
  };
  const root = convert(schema, rootName.split('.').pop() ?? rootName);
  const properties = 'type' in root && root.type === 'object' ? root.properties : {};
  return {
    [rootName]: {
      type: 'object',
      goName: rootName.split('.').pop() ?? rootName,
      properties: { ...properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { $ref: OBJECT_META } },
    },
  };
}
