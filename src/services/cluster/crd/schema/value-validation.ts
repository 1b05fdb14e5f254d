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

/**
 * validateCustomObject validates a custom object against its version's schema, with the
 * apiserver's field errors. On an update, pass the stored object as `oldObject`: as 1.32 does,
 * schema errors of values that did not change are dropped (ratcheting; map-list items correlate
 * by key), and list-type errors are reported only when the old object had none.
 */
export function validateCustomObject(schema: JSONSchemaProps, object: unknown, oldObject?: unknown): FieldError[] {
  const old = oldObject === undefined ? undefined : { value: oldObject };
  const errors = toFieldErrors('', validateValue(schema, object, '', old).errors);
  errors.push(...validateEmbeddedResources(schema, object));
  const oldListTypesValid = !isJsonObject(oldObject) || validateListTypes(schema, oldObject).length === 0;
  if (isJsonObject(object) && oldListTypesValid) errors.push(...validateListTypes(schema, object));
  return errors;
}
