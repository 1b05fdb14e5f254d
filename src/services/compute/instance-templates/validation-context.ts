import { invalidFieldValue } from '../shared/errors.ts';
import { resourcePathOf } from '../shared/links.ts';

/** ValidationContext is what template validation needs beyond the body itself. */
export interface ValidationContext {
  readonly project: string;
  /** checkPermission throws the 403 when the caller lacks a field-level permission on a resource. */
  readonly checkPermission: (permission: string, resourcePath: string) => void;
  /** fieldRoot names the properties in messages: `resource.properties` in a template (the default), `resource` in an instance. */
  readonly fieldRoot?: string;
}

/** fieldRootOf is where the properties sit in the body being validated. */
export function fieldRootOf(ctx: ValidationContext): string {
  return ctx.fieldRoot ?? 'resource.properties';
}

/** referencePath resolves a resource reference in the body, or throws the field's 400. */
export function referencePath(field: string, reference: string, project: string, pattern: RegExp, what: string): string {
  const path = resourcePathOf(reference, project);
  if (path === undefined || !pattern.test(path)) throw invalidFieldValue(field, reference, `The URL is malformed. Expected a reference to a ${what}.`);
  return path;
}
