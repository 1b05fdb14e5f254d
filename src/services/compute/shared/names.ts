import { invalidFieldValue, requiredField } from './errors.ts';

/** RESOURCE_NAME_PATTERN is RFC 1035 as compute checks names: 1–63 characters. */
export const RESOURCE_NAME_PATTERN = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** RESOURCE_NAME_REGEX_TEXT is how the real error message prints the pattern. */
export const RESOURCE_NAME_REGEX_TEXT = '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)';

/** checkResourceName throws the real 400 for a missing or malformed resource name. */
export function checkResourceName(name: unknown, field = 'resource.name'): string {
  if (name === undefined || name === '') throw requiredField(field);
  if (typeof name !== 'string' || !RESOURCE_NAME_PATTERN.test(name)) {
    throw invalidFieldValue(field, name, `Must be a match of regex '${RESOURCE_NAME_REGEX_TEXT}'`);
  }
  return name;
}
