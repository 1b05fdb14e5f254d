/**
 * The apiserver's checks of `default` values in a structural schema (apiextensions
 * `apiserver/schema/defaulting` ValidateDefaults): a default must survive pruning unchanged
 * (`must not have unknown fields`), make valid embedded resources, and pass the node's own value
 * validation, its errors reported under `….default`. The root counts as a resource, so defaults
 * inside its apiVersion/kind/metadata are checked as metadata (those at the top level are refused
 * earlier: `must not be set in top-level metadata`).
 */
import { type FieldError, invalid } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { objectMetaDecodeError, validateEmbeddedResources } from './embedded-resources.ts';
import { isJsonObject, jsonEqual } from './json-values.ts';
import { goFieldValue } from './list-types.ts';
import { toFieldErrors } from './openapi-errors.ts';
import { validateValue } from './openapi-validator.ts';
import { pruneValue } from './pruning.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** defaultLiteral prints a default as the field error's value: Go's `%v`/`%#v` of the decoded JSON. */
const defaultLiteral = goFieldValue;

function check(node: JSONSchemaProps, path: string, insideMeta: boolean, root: boolean, errors: FieldError[]): void {
  const embedded = root || node['x-kubernetes-embedded-resource'] === true;
  const meta = embedded ? false : insideMeta;
  if (node.default !== undefined) {
    const value = node.default;
    const at = `${path}.default`;
    if (!meta && !jsonEqual(pruneValue(value, node, embedded), value)) errors.push(invalid(at, defaultLiteral(value), 'must not have unknown fields'));
    const metadataProblem = embedded && isJsonObject(value) && Object.hasOwn(value, 'metadata') ? objectMetaDecodeError(value.metadata) : undefined;
    if (metadataProblem !== undefined && isJsonObject(value)) {
      errors.push(invalid(`${at}.metadata`, defaultLiteral(value.metadata), metadataProblem));
    } else {
      const resourceErrors = validateEmbeddedResources(node, value, embedded).map((error) => ({
        ...error,
        field: error.field === '' ? at : `${at}.${error.field}`,
      }));
      if (resourceErrors.length > 0) errors.push(...resourceErrors);
      else errors.push(...toFieldErrors(at, validateValue(node, value, '').errors));
    }
  }
  const items = node.items === undefined || Array.isArray(node.items) ? undefined : node.items;
  if (items !== undefined) check(items, `${path}.items`, meta, false, errors);
  for (const [name, property] of Object.entries(node.properties ?? {})) {
    check(property, `${path}.properties[${name}]`, meta || (embedded && META_FIELDS.has(name)), false, errors);
  }
}

/** validateDefaults checks every `default` of a structural schema rooted at a resource. */
export function validateDefaults(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  check(schema, path, false, true, errors);
  return errors;
}
