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
 * by key), and list-type errors are reported only when the old object had none. `validatorErrors`
 * are the validator's own checks that the apiserver reports after the schema's and before the
 * embedded resources' (the scale subresource's replica paths).
 */
export function validateCustomObject(schema: JSONSchemaProps, object: unknown, oldObject?: unknown, validatorErrors: readonly FieldError[] = []): FieldError[] {
  const old = oldObject === undefined ? undefined : { value: oldObject };
  const errors = toFieldErrors('', validateValue(schema, object, '', old).errors);
  errors.push(...validatorErrors);
  errors.push(...validateEmbeddedResources(schema, object));
  const oldListTypesValid = !isJsonObject(oldObject) || validateListTypes(schema, oldObject).length === 0;
  if (isJsonObject(object) && oldListTypesValid) errors.push(...validateListTypes(schema, object));
  return errors;
}

/**
 * validateCustomStatus is what a `/status` write checks of the schema (the status strategy's
 * ValidateStatusUpdate): the object's `status`, when present, against the schema's `status`
 * property alone, its errors under `status` with the sub-schema's own names in the texts
 * (`status.num: Invalid value: 15: num in body should be less than or equal to 10`) and no
 * ratcheting; then the list-type invariants of the whole object, reported only when the old
 * object had none. `validatorErrors` come between the two (the scale status paths).
 */
export function validateCustomStatus(
  schema: JSONSchemaProps,
  object: Record<string, unknown>,
  oldObject: Record<string, unknown>,
  validatorErrors: readonly FieldError[] = [],
): FieldError[] {
  const errors: FieldError[] = [];
  const statusSchema = schema.properties !== undefined && Object.hasOwn(schema.properties, 'status') ? schema.properties['status'] : undefined;
  if (statusSchema !== undefined && Object.hasOwn(object, 'status')) {
    errors.push(...toFieldErrors('status', validateValue(statusSchema, object['status'], '').errors));
  }
  errors.push(...validatorErrors);
  const newListErrors = validateListTypes(schema, object);
  if (newListErrors.length > 0 && validateListTypes(schema, oldObject).length === 0) errors.push(...newListErrors);
  return errors;
}
