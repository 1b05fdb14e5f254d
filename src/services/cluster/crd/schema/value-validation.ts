/**
 * validateCustomObject: what the apiserver checks of a custom object against its schema, in its
 * order (`registry/customresource` strategy): kube-openapi value validation of the whole object,
 * then the embedded resources' apiVersion/kind/metadata, then list-type set/map uniqueness.
 */
import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { validateEmbeddedResources } from './embedded-resources.ts';
import { isJsonObject } from './json-values.ts';
import { validateListTypes } from './list-types.ts';
import { toFieldErrors } from './openapi-errors.ts';
import { validateValue } from './openapi-validator.ts';

/** validateCustomObject validates a custom object against its version's schema, with the apiserver's field errors. */
export function validateCustomObject(schema: JSONSchemaProps, object: unknown): FieldError[] {
  const errors = toFieldErrors('', validateValue(schema, object, '').errors);
  errors.push(...validateEmbeddedResources(schema, object));
  if (isJsonObject(object)) errors.push(...validateListTypes(schema, object));
  return errors;
}
