import { fieldSizeTooLarge } from './errors.ts';

/**
 * Length limits on free-form strings of compute resources, answered with the catalog's
 * FIELD_SIZE_TOO_LARGE (`Value for field 'F' is too large: maximum size N characters; actual
 * size M.`). Lengths count code points, as the service's proto strings do.
 */

/** MAX_RESOURCE_DESCRIPTION is the limit on a resource's `description` (2,048 characters; the commonly documented figure, not confirmed against a live error). */
export const MAX_RESOURCE_DESCRIPTION = 2048;

/** checkLength throws FIELD_SIZE_TOO_LARGE when `value` has more than `max` characters. */
export function checkLength(value: string | undefined, max: number, field: string): void {
  if (value === undefined || value.length <= max) return;
  // Only count code points when UTF-16 length is over the limit: the common case stays O(1).
  const size = [...value].length;
  if (size > max) throw fieldSizeTooLarge(field, max, 'characters', size);
}

/** checkDescription applies the resource description limit. */
export function checkDescription(value: string | undefined, field = 'resource.description'): void {
  checkLength(value, MAX_RESOURCE_DESCRIPTION, field);
}
