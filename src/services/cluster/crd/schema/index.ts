/**
 * PLACEHOLDER of crd-schema's module (branch h-crd-schema), with the agreed signatures, so the
 * serving engine compiles and runs before that branch is merged; the merge replaces this file.
 * It prunes and converts for server-side apply; it validates and defaults nothing.
 */
import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { Schema, SchemaSet } from '../../apimachinery/schema.ts';
import { OBJECT_META } from '../../resources/meta-schemas.ts';
import type { JSONSchemaProps } from '../types.ts';

/** validateStructuralSchema (placeholder) finds nothing wrong. */
export function validateStructuralSchema(
  _schema: JSONSchemaProps,
  _fieldPath: string,
  _options: { statusSubresource: boolean; scaleSubresource: boolean },
): FieldError[] {
  return [];
}

/** validateCustomObject (placeholder) finds nothing wrong. */
export function validateCustomObject(_schema: JSONSchemaProps, _object: unknown): FieldError[] {
  return [];
}

/** pruneCustomObject (placeholder) drops fields the schema does not declare. */
export function pruneCustomObject(schema: JSONSchemaProps, object: Record<string, unknown>): { object: Record<string, unknown>; unknownFields: string[] } {
  const unknownFields: string[] = [];
  const walk = (value: unknown, node: JSONSchemaProps | undefined, path: string, root: boolean): unknown => {
    if (node === undefined || node['x-kubernetes-preserve-unknown-fields'] === true) return value;
    if (Array.isArray(value)) {
      const items = Array.isArray(node.items) ? undefined : node.items;
      return value.map((item, index) => walk(item, items, `${path}[${index}]`, false));
    }
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const field = path === '' ? key : `${path}.${key}`;
      if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
        Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
        continue;
      }
      const property = node.properties !== undefined && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
      const additional = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      if (property === undefined && additional === undefined && node.additionalProperties !== true) {
        unknownFields.push(field);
        continue;
      }
      Object.defineProperty(out, key, { value: walk(item, property ?? additional, field, false), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return { object: walk(object, schema, '', true) as Record<string, unknown>, unknownFields };
}

/** defaultCustomObject (placeholder) applies no defaults. */
export function defaultCustomObject(_schema: JSONSchemaProps, object: Record<string, unknown>): Record<string, unknown> {
  return structuredClone(object);
}

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
