/**
 * The apiserver's keyword checks of a CRD version's schema, node by node (apiextensions
 * `apis/apiextensions/validation` ValidateCustomResourceDefinitionOpenAPISchema and its v3
 * standard validator): unsupported keywords (`$ref`, `id`, `definitions`, …), `type: null`,
 * tuple items, `uniqueItems`, additionalProperties beside properties, defaults where they
 * cannot apply (top-level metadata, metadata maps), and the list/map type extensions with their
 * keys (required or defaulted, not nullable, scalar; set items atomic). The CEL rule fields of
 * `x-kubernetes-validations` are checked with the rules themselves (`crd/cel`).
 */
import { type FieldError, forbidden, GoLiteral, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { ownValue } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { goSchemaLiteral } from './go-schema-literal.ts';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** Context is the standard validator's state for one node. */
interface Context {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

const withForbiddenDefaults = (context: Context, reason: string): Context => ({ ...context, allowDefaults: false, disallowDefaultsReason: reason });

/** A Go nil pointer prints as "null" in a field error. */
const orNull = (value: string | undefined): string => value ?? 'null';

function standard(schema: JSONSchemaProps, path: string, context: Context, errors: FieldError[]): void {
  const type = schema.type ?? '';
  if (type !== '' && !OPENAPI_V3_TYPES.includes(type)) errors.push(notSupported(`${path}.type`, type, OPENAPI_V3_TYPES));
  if (schema.default !== undefined && !context.allowDefaults) {
    errors.push(forbidden(`${path}.default`, context.disallowDefaultsReason === '' ? 'must not be set' : `must not be set ${context.disallowDefaultsReason}`));
  }
  if (schema.id !== undefined && schema.id !== '') errors.push(forbidden(`${path}.id`, 'id is not supported'));
  if (schema.additionalItems !== undefined) errors.push(forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (schema.patternProperties !== undefined && Object.keys(schema.patternProperties).length > 0)
    errors.push(forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (schema.definitions !== undefined && Object.keys(schema.definitions).length > 0)
    errors.push(forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (schema.dependencies !== undefined) errors.push(forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (schema.$ref !== undefined) errors.push(forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') errors.push(forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(schema.items) && schema.items.length > 0) errors.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (context.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errors.push(forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
}

function node(schema: JSONSchemaProps, path: string, context: Context, isRoot: boolean, errors: FieldError[]): void {
  standard(schema, path, context, errors);
  if (schema.uniqueItems === true)
    errors.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const hasProperties = schema.properties !== undefined && Object.keys(schema.properties).length > 0;
  const additional = schema.additionalProperties;
  if (additional !== undefined) {
    if (hasProperties && (additional === false || typeof additional === 'object')) {
      errors.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = context.insideResourceMeta ? withForbiddenDefaults(context, 'inside additionalProperties applying to object metadata') : context;
    if (typeof additional === 'object') node(additional, `${path}.additionalProperties`, sub, false, errors);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    let sub = context;
    if ((isRoot || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
    }
    node(property, `${path}.properties[${name}]`, sub, false, errors);
  }
  if (schema.not !== undefined) node(schema.not, `${path}.not`, context, false, errors);
  (schema.allOf ?? []).forEach((part, index) => {
    node(part, `${path}.allOf[${index}]`, context, false, errors);
  });
  (schema.oneOf ?? []).forEach((part, index) => {
    node(part, `${path}.oneOf[${index}]`, context, false, errors);
  });
  (schema.anyOf ?? []).forEach((part, index) => {
    node(part, `${path}.anyOf[${index}]`, context, false, errors);
  });
  for (const [name, definition] of Object.entries(schema.definitions ?? {})) node(definition, `${path}.definitions[${name}]`, context, false, errors);
  if (Array.isArray(schema.items))
    schema.items.forEach((item, index) => {
      node(item, `${path}.items[${index}]`, context, false, errors);
    });
  else if (schema.items !== undefined) node(schema.items, `${path}.items`, context, false, errors);
  for (const [name, dependency] of Object.entries(schema.dependencies ?? {})) {
    if (!Array.isArray(dependency)) node(dependency, `${path}.dependencies[${name}]`, context, false, errors);
  }
  extensions(schema, path, errors);
}

function extensions(schema: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const type = schema.type ?? '';
  if (schema['x-kubernetes-preserve-unknown-fields'] === false)
    errors.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType !== undefined && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errors.push(type === '' ? required(`${path}.type`, detail) : invalid(`${path}.type`, type, detail));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    errors.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  const listType = schema['x-kubernetes-list-type'];
  const items = schema.items === undefined || Array.isArray(schema.items) ? undefined : schema.items;
  if (listType !== undefined && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errors.push(type === '' ? required(`${path}.type`, detail) : invalid(`${path}.type`, type, detail));
  } else if (listType === 'set' && items !== undefined) {
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errors.push(invalid(`${path}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], detail));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The apiserver prints the items' list type here, which is normally unset.
      errors.push(invalid(`${path}.items.x-kubernetes-map-type`, orNull(items['x-kubernetes-list-type']), detail));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errors.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) errors.push(required(`${path}.x-kubernetes-list-type`, detail));
    else if (listType !== 'map') errors.push(invalid(`${path}.x-kubernetes-list-type`, listType, detail));
  }
  if (listType === 'map') {
    if (keys.length === 0) errors.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (schema.items === undefined) errors.push(required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(schema.items)) {
      const literal = `apiextensions.JSONSchemaPropsOrArray{Schema:(*apiextensions.JSONSchemaProps)(nil), JSONSchemas:[]apiextensions.JSONSchemaProps{${schema.items.map(goSchemaLiteral).join(', ')}}}`;
      errors.push(invalid(`${path}.items`, new GoLiteral(literal), 'must only have a single schema if x-kubernetes-list-type is map'));
    }
    if (items !== undefined && items.type !== 'object')
      errors.push(invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (items !== undefined && items.type === 'object') {
      const seen = new Set<string>();
      for (const key of keys) {
        const property = ownValue(items.properties ?? {}, key);
        if (property === undefined) {
          errors.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
        } else if (property.type === 'array' || property.type === 'object') {
          // The apiserver prints the item's type here, not the key's.
          errors.push(invalid(`${path}.items.properties[${key}].type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
        if (seen.has(key)) errors.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  if (items !== undefined && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) errors.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const requiredKeys = new Set(items.required ?? []);
      for (const key of keys) {
        const property = ownValue(items.properties ?? {}, key);
        if (property === undefined) continue;
        if (!requiredKeys.has(key) && property.default === undefined) {
          errors.push(
            required(
              `${path}.items.properties[${key}].default`,
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (property.nullable === true)
          errors.push(forbidden(`${path}.items.properties[${key}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
}

/** validateSchemaKeywords checks every node of a version's schema, the root at `path`. */
export function validateSchemaKeywords(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  node(schema, path, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true, errors);
  return errors;
}
