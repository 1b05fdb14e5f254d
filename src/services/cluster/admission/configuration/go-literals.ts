/**
 * Values of the internal admissionregistration types as Go's `%#v` prints them in field errors:
 * a list of a named string type is `[]admissionregistration.OperationType{"CREATE", "*"}`
 * (a plain `[]string` is printed by field-errors.ts itself).
 */
import { GoLiteral } from '../../apimachinery/field-errors.ts';

/** typedStrings prints a list of the internal package's named string type `type`. */
export function typedStrings(type: string, values: readonly string[]): GoLiteral {
  return new GoLiteral(`[]admissionregistration.${type}{${values.map((value) => JSON.stringify(value)).join(', ')}}`);
}

/** stringsOf reads a JSON list of strings (null items as ""), or [] when it is not a list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : '')) : [];
}

/** recordOf reads a JSON object, or undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** listOf reads a JSON list, or [] when absent. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** stringAt reads a string member, or undefined when absent or null. */
export function stringAt(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}
