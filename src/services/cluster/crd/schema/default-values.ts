/**
 * The apiserver's checks of `default` values in a structural schema (apiextensions
 * `apiserver/schema/defaulting` ValidateDefaults): a default must survive pruning unchanged
 * (`must not have unknown fields`), make valid embedded resources, and pass the node's own value
 * validation, its errors reported under `….default`. The root counts as a resource, so defaults
 * inside its apiVersion/kind/metadata are checked as metadata (those at the top level are refused
 * earlier: `must not be set in top-level metadata`); inside a nested resource's metadata a default
 * must make that resource's metadata valid.
 */
import { aggregateFieldErrors, type FieldError, fieldErrorText, invalid } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { objectMetaDecodeError, validateEmbeddedResources } from './embedded-resources.ts';
import { cloneJson, isJsonObject, type JsonObject, jsonEqual } from './json-values.ts';
import { goFieldValue } from './list-types.ts';
import { toFieldErrors } from './openapi-errors.ts';
import { validateValue } from './openapi-validator.ts';
import { pruneValue } from './pruning.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** defaultLiteral prints a default as the field error's value: Go's `%v`/`%#v` of the decoded JSON. */
const defaultLiteral = goFieldValue;

/** Where a node sits in the resource around it: that resource's schema and the steps from it (names, or 0 for list items). */
interface Surrounding {
  readonly schema: JSONSchemaProps;
  readonly steps: readonly (string | 0)[];
}

/**
 * metadataProblem checks a default that lies inside a resource's apiVersion, kind or metadata the
 * way the apiserver does: placed in an otherwise empty resource of kind `Validation`, which must
 * then coerce and validate as a resource (`must result in valid metadata: …`).
 */
function metadataProblem(value: unknown, around: Surrounding): string | undefined {
  let object: unknown = cloneJson(value);
  for (let index = around.steps.length - 1; index >= 0; index--) {
    const step = around.steps[index]!;
    if (step === 0) object = [object];
    else {
      const wrapper: JsonObject = {};
      Object.defineProperty(wrapper, step, { value: object, writable: true, enumerable: true, configurable: true });
      object = wrapper;
    }
  }
  if (!isJsonObject(object)) return undefined;
  if (!Object.hasOwn(object, 'kind')) object.kind = 'Validation';
  if (!Object.hasOwn(object, 'apiVersion')) object.apiVersion = 'validation/v1';
  for (const name of ['apiVersion', 'kind']) {
    if (typeof object[name] !== 'string') return fieldErrorText(invalid(name, goFieldValue(object[name]), 'must be a string'));
  }
  if (Object.hasOwn(object, 'metadata')) {
    const problem = objectMetaDecodeError(object.metadata);
    if (problem !== undefined) return fieldErrorText(invalid('metadata', goFieldValue(object.metadata), problem));
  }
  const errors = validateEmbeddedResources(around.schema, object, true);
  return errors.length === 0 ? undefined : aggregateFieldErrors(errors);
}

function check(node: JSONSchemaProps, path: string, insideMeta: boolean, around: Surrounding | undefined, errors: FieldError[]): void {
  const embedded = around === undefined || node['x-kubernetes-embedded-resource'] === true;
  const meta = embedded ? false : insideMeta;
  const here: Surrounding = embedded ? { schema: node, steps: [] } : around!;
  if (node.default !== undefined) {
    const value = node.default;
    const at = `${path}.default`;
    if (meta) {
      const problem = metadataProblem(value, here);
      if (problem !== undefined) errors.push(invalid(at, defaultLiteral(value), `must result in valid metadata: ${problem}`));
      else errors.push(...toFieldErrors(at, validateValue(node, value, '').errors));
    } else {
      if (!jsonEqual(pruneValue(value, node, embedded), value)) errors.push(invalid(at, defaultLiteral(value), 'must not have unknown fields'));
      const metadataError = embedded && isJsonObject(value) && Object.hasOwn(value, 'metadata') ? objectMetaDecodeError(value.metadata) : undefined;
      if (metadataError !== undefined && isJsonObject(value)) {
        errors.push(invalid(`${at}.metadata`, defaultLiteral(value.metadata), metadataError));
      } else {
        const resourceErrors = validateEmbeddedResources(node, value, embedded).map((error) => ({
          ...error,
          field: error.field === '' ? at : `${at}.${error.field}`,
        }));
        if (resourceErrors.length > 0) errors.push(...resourceErrors);
        else errors.push(...toFieldErrors(at, validateValue(node, value, '').errors));
      }
    }
  }
  const items = node.items === undefined || Array.isArray(node.items) ? undefined : node.items;
  if (items !== undefined) check(items, `${path}.items`, meta, { schema: here.schema, steps: [...here.steps, 0] }, errors);
  for (const [name, property] of Object.entries(node.properties ?? {})) {
    check(property, `${path}.properties[${name}]`, meta || (embedded && META_FIELDS.has(name)), { schema: here.schema, steps: [...here.steps, name] }, errors);
  }
}

/** validateDefaults checks every `default` of a structural schema rooted at a resource. */
export function validateDefaults(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  check(schema, path, false, undefined, errors);
  return errors;
}
