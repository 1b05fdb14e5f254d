/**
 * Objects nested in a custom object with `x-kubernetes-embedded-resource: true` are resources of
 * their own: they need `apiVersion` and `kind`, and their `metadata` must be valid ObjectMeta
 * (apiextensions `apiserver/schema/objectmeta`). The root's own metadata is the engine's job.
 */
import { type FieldError, invalid, required } from '../../apimachinery/field-errors.ts';
import { type ObjectMeta, validateObjectMeta } from '../../apimachinery/object-meta.ts';
import { ownValue } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { isDns1035Label } from '../../apimachinery/name-rules.ts';
import { isJsonObject, type JsonObject } from './json-values.ts';
import { goFieldValue } from './list-types.ts';

/** OBJECT_META_FIELDS are ObjectMeta's JSON fields, with the Go type each decodes into. */
export const OBJECT_META_FIELDS: Readonly<Record<string, 'string' | 'int64' | 'map' | 'list' | 'any'>> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'any',
  deletionTimestamp: 'any',
  deletionGracePeriodSeconds: 'int64',
  labels: 'map',
  annotations: 'map',
  ownerReferences: 'list',
  finalizers: 'list',
  managedFields: 'list',
};

const jsonTypeName = (value: unknown): string => {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
};

/** objectMetaDecodeError is the error Go's JSON decoder gives for metadata that does not fit ObjectMeta, or undefined. */
export function objectMetaDecodeError(metadata: unknown): string | undefined {
  if (metadata === null) return undefined;
  if (!isJsonObject(metadata)) return `json: cannot unmarshal ${jsonTypeName(metadata)} into Go value of type v1.ObjectMeta`;
  for (const [key, value] of Object.entries(metadata)) {
    const kind = ownValue(OBJECT_META_FIELDS, key);
    if (kind === undefined || value === null) continue;
    const field = `ObjectMeta.${key}`;
    if (kind === 'string' && typeof value !== 'string') return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${field} of type string`;
    if (kind === 'int64' && (typeof value !== 'number' || !Number.isInteger(value))) {
      return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${field} of type int64`;
    }
    if (kind === 'map') {
      if (!isJsonObject(value)) return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${field} of type map[string]string`;
      for (const item of Object.values(value)) {
        if (item !== null && typeof item !== 'string') return `json: cannot unmarshal ${jsonTypeName(item)} into Go struct field ${field} of type string`;
      }
    }
    if (kind === 'list' && !Array.isArray(value)) {
      const goType = key === 'finalizers' ? '[]string' : key === 'ownerReferences' ? '[]v1.OwnerReference' : '[]v1.ManagedFieldsEntry';
      return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${field} of type ${goType}`;
    }
  }
  return undefined;
}

/** parseGroupVersionError is apimachinery's ParseGroupVersion error for an apiVersion, or undefined. */
function parseGroupVersionError(apiVersion: string): string | undefined {
  if (apiVersion === '' || apiVersion === '/') return undefined;
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

function validateEmbedded(path: string, object: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const at = (name: string): string => (path === '' ? name : `${path}.${name}`);
  if (!Object.hasOwn(object, 'apiVersion')) errors.push(required(at('apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(object, 'kind')) errors.push(required(at('kind'), 'must not be empty'));
  if (Object.hasOwn(object, 'apiVersion')) {
    const apiVersion = object.apiVersion;
    if (typeof apiVersion !== 'string') errors.push(invalid(at('apiVersion'), goFieldValue(apiVersion), 'must be a string'));
    else if (apiVersion === '') errors.push(invalid(at('apiVersion'), apiVersion, 'must not be empty'));
    else {
      const problem = parseGroupVersionError(apiVersion);
      if (problem !== undefined) errors.push(invalid(at('apiVersion'), apiVersion, problem));
    }
  }
  if (Object.hasOwn(object, 'kind')) {
    const kind = object.kind;
    if (typeof kind !== 'string') errors.push(invalid(at('kind'), goFieldValue(kind), 'must be a string'));
    else if (kind === '') errors.push(invalid(at('kind'), kind, 'must not be empty'));
    else {
      const problems = isDns1035Label(kind.toLowerCase());
      if (problems.length > 0) errors.push(invalid(at('kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
    }
  }
  if (Object.hasOwn(object, 'metadata')) {
    const metadata = object.metadata;
    const problem = objectMetaDecodeError(metadata);
    if (problem !== undefined) errors.push(invalid(at('metadata'), goFieldValue(metadata), problem));
    else if (isJsonObject(metadata)) {
      const meta = { ...(metadata as ObjectMeta) };
      // As the apiserver does: a nested resource may leave its name to be set later.
      if (meta.name === undefined || meta.name === '') meta.name = 'fakename';
      const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
      for (const error of validateObjectMeta(meta, { namespaced, nameRule: 'path-segment' })) {
        errors.push({ ...error, field: at(error.field) });
      }
    }
  }
  return errors;
}

/**
 * validateEmbeddedResources checks every embedded resource in a value: below the root of a custom
 * object (whose own metadata the engine checks), or, with `checkRoot`, the value itself too.
 */
export function validateEmbeddedResources(schema: JSONSchemaProps, object: unknown, checkRoot = false): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (node: JSONSchemaProps | undefined, value: unknown, path: string, root: boolean): void => {
    if (node === undefined) return;
    if (isJsonObject(value)) {
      if (root ? checkRoot : node['x-kubernetes-embedded-resource'] === true) errors.push(...validateEmbedded(path, value));
      const properties = node.properties ?? {};
      const additional = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      for (const [key, item] of Object.entries(value)) {
        const property = ownValue(properties, key);
        if (property !== undefined) walk(property, item, path === '' ? key : `${path}.${key}`, false);
        else if (additional !== undefined) walk(additional, item, `${path}[${key}]`, false);
      }
    } else if (Array.isArray(value)) {
      const items = Array.isArray(node.items) ? undefined : node.items;
      value.forEach((item, index) => {
        walk(items, item, `${path}[${index}]`, false);
      });
    }
  };
  walk(schema, object, '', true);
  return errors;
}
