import type { JSONSchemaProps } from '../types.ts';

// Until crd-schema's pruning lands: the engine's placeholder (drops fields the schema does not declare).
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
