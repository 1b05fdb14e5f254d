/**
 * PLACEHOLDER of crd-cel's module (branch h-crd-cel), with the agreed signatures, so the serving
 * engine compiles and runs before that branch is merged; the merge replaces this file. It
 * compiles and runs no rule.
 */
import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';

/** SchemaRules are the compiled `x-kubernetes-validations` of one schema. */
export interface SchemaRules {
  validate(object: Record<string, unknown>, oldObject: Record<string, unknown> | undefined): { errors: FieldError[]; warnings: string[] };
}

/** compileSchemaRules (placeholder) compiles nothing. */
export function compileSchemaRules(_schema: JSONSchemaProps, _fieldPath: string): { errors: FieldError[]; rules: SchemaRules } {
  return { errors: [], rules: { validate: () => ({ errors: [], warnings: [] }) } };
}
