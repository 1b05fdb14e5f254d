/**
 * The rules of a `metav1.LabelSelector` object (apimachinery `meta/v1/validation`
 * ValidateLabelSelector): matchLabels as labels, and each matchExpressions entry's operator,
 * values and key. The admission configurations validate their selectors strictly (label values
 * must be valid label values).
 */
import { type FieldError, forbidden, invalid, required } from '../../apimachinery/field-errors.ts';
import { isLabelValue, isQualifiedName } from '../../apimachinery/name-rules.ts';
import { validateLabels } from '../../apimachinery/object-meta.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * validateLabelSelector checks a selector object at `path` (nothing when it is absent);
 * `allowInvalidLabelValues` skips the value rule, as webhook updates do when the stored
 * configuration already had such a value.
 */
export function validateLabelSelector(selector: unknown, path: string, allowInvalidLabelValues = false): FieldError[] {
  if (!isRecord(selector)) return [];
  const errors = validateLabels(isRecord(selector['matchLabels']) ? (selector['matchLabels'] as Record<string, string>) : undefined, `${path}.matchLabels`);
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const [index, entry] of expressions.entries()) {
    const requirement = isRecord(entry) ? entry : {};
    const at = `${path}.matchExpressions[${index}]`;
    const operator = typeof requirement['operator'] === 'string' ? requirement['operator'] : '';
    const values = Array.isArray(requirement['values']) ? (requirement['values'] as unknown[]).map((value) => String(value ?? '')) : [];
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errors.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errors.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errors.push(invalid(`${at}.operator`, operator, 'not a valid selector operator'));
    }
    const key = typeof requirement['key'] === 'string' ? requirement['key'] : '';
    for (const problem of isQualifiedName(key)) errors.push(invalid(`${at}.key`, key, problem));
    if (allowInvalidLabelValues) continue;
    for (const [valueIndex, value] of values.entries()) {
      for (const problem of isLabelValue(value)) errors.push(invalid(`${at}.values[${valueIndex}]`, value, problem));
    }
  }
  return errors;
}
