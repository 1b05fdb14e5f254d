import type { SchemaSet } from '../../apimachinery/schema.ts';
import type { JSONSchemaProps } from '../types.ts';

/** ssaSchemaSet converts a custom resource's schema into the SchemaSet server-side apply walks, the root under `rootName`. */
export function ssaSchemaSet(_schema: JSONSchemaProps, rootName: string): SchemaSet {
  return { [rootName]: { type: 'any' } };
}
