/**
 * `x-kubernetes-validations`: the CEL rules of a custom resource schema, checked when a CRD is
 * written (rule fields, compilation with `self` typed from the schema, static cost) and run when a
 * custom object is written (every rule at its node, transition rules with `oldSelf`, runtime cost
 * budget, ratcheting). Pure: no clock, no I/O. Compiled schemas are cached by their text (bounded).
 */
import { BoundedMap } from '../../../../lib/bounded-map.ts';
import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { compileTree } from './compile.ts';
import { validateWithRules } from './validate.ts';

/** SchemaRules are the compiled rules of one schema, ready to validate objects against it. */
export interface SchemaRules {
  /**
   * validate runs every rule of the schema on `object` (with `oldObject` on updates) and returns
   * the failures and the ratcheting warnings; `ratcheting: false` (a `/status` write) reports
   * failures of unchanged values too.
   */
  validate(
    object: Record<string, unknown>,
    oldObject: Record<string, unknown> | undefined,
    options?: { readonly ratcheting?: boolean },
  ): { errors: FieldError[]; warnings: string[] };
}

const cache = new BoundedMap<string, { errors: FieldError[]; rules: SchemaRules }>(256);

/** compileSchemaRules checks and compiles every `x-kubernetes-validations` rule of a version's schema; `fieldPath` is where the schema sits in the CRD (`spec.versions[0].schema.openAPIV3Schema`). */
export function compileSchemaRules(schema: JSONSchemaProps, fieldPath: string): { errors: FieldError[]; rules: SchemaRules } {
  const key = `${fieldPath}\u0000${JSON.stringify(schema)}`;
  const cached = cache.get(key);
  if (cached !== undefined) return { errors: [...cached.errors], rules: cached.rules };
  const { errors, root } = compileTree(schema, fieldPath);
  const rules: SchemaRules = {
    validate: (object, oldObject, options) => validateWithRules(root, object, oldObject, undefined, options?.ratcheting ?? true),
  };
  cache.set(key, { errors, rules });
  return { errors: [...errors], rules };
}

/**
 * hasValidationRules is the apiserver's hasXValidations: whether any node of the schema reachable
 * through properties, items and additionalProperties carries `x-kubernetes-validations`. Without
 * one there is no CEL validator, so nothing is reported about rules left unchecked.
 */
export function hasValidationRules(schema: JSONSchemaProps): boolean {
  const pending: JSONSchemaProps[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const rules = node['x-kubernetes-validations'];
    if (Array.isArray(rules) && rules.length > 0) return true;
    if (node.items !== undefined && !Array.isArray(node.items)) pending.push(node.items);
    if (node.additionalProperties !== undefined && typeof node.additionalProperties === 'object') pending.push(node.additionalProperties);
    for (const property of Object.values(node.properties ?? {})) pending.push(property);
  }
  return false;
}
