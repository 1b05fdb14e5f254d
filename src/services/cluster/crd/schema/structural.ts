/**
 * validateStructuralSchema: what the apiserver checks of one CRD version's openAPIV3Schema on
 * every CRD write (apiextensions `validateCustomResourceDefinitionValidation`), in its order: the
 * root restrictions of the status subresource, no nullable root, the structural rules (or, if
 * those pass, the defaults), then the keyword checks of every node; a schema that cannot even be
 * read as structural reports that only when nothing else is wrong.
 */
import { type FieldError, forbidden, GoLiteral, invalid } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps } from '../types.ts';
import { validateDefaults } from './default-values.ts';
import { goSchemaLiteral } from './go-schema-literal.ts';
import { validateSchemaKeywords } from './schema-keywords.ts';
import { structuralConversionError, validateStructuralRules } from './structural-invariants.ts';

/** The JSONSchemaProps fields (Go names, struct order) and their wire keys. */
const GO_FIELDS: readonly (readonly [string, keyof JSONSchemaProps])[] = [
  ['ID', 'id'],
  ['Schema', '$schema'],
  ['Ref', '$ref'],
  ['Description', 'description'],
  ['Type', 'type'],
  ['Nullable', 'nullable'],
  ['Format', 'format'],
  ['Title', 'title'],
  ['Default', 'default'],
  ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'],
  ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'],
  ['Pattern', 'pattern'],
  ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'],
  ['UniqueItems', 'uniqueItems'],
  ['MultipleOf', 'multipleOf'],
  ['Enum', 'enum'],
  ['MaxProperties', 'maxProperties'],
  ['MinProperties', 'minProperties'],
  ['Required', 'required'],
  ['Items', 'items'],
  ['AllOf', 'allOf'],
  ['OneOf', 'oneOf'],
  ['AnyOf', 'anyOf'],
  ['Not', 'not'],
  ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'],
  ['PatternProperties', 'patternProperties'],
  ['Dependencies', 'dependencies'],
  ['AdditionalItems', 'additionalItems'],
  ['Definitions', 'definitions'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'],
  ['XListMapKeys', 'x-kubernetes-list-map-keys'],
  ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'],
  ['XValidations', 'x-kubernetes-validations'],
];

const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

/** isGoZero is true for a field Go would hold at its zero value (reflect.DeepEqual with the zero). */
function isGoZero(name: string, value: unknown): boolean {
  if (value === undefined) return true;
  // Pointer fields are non-zero whenever set; plain ones only when they differ from "", false, nil.
  const plain = [
    'ID',
    'Schema',
    'Description',
    'Type',
    'Format',
    'Title',
    'Pattern',
    'Nullable',
    'ExclusiveMaximum',
    'ExclusiveMinimum',
    'UniqueItems',
    'XEmbeddedResource',
    'XIntOrString',
  ];
  if (plain.includes(name)) return value === '' || value === false;
  return false;
}

function statusRootErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  for (const [goName, wireName] of GO_FIELDS) {
    const value = schema[wireName];
    if (isGoZero(goName, value)) continue;
    if (goName === 'Type') {
      if (value !== 'object')
        return [invalid(`${path}.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(goName)) {
      return [
        invalid(
          path,
          new GoLiteral(goSchemaLiteral(schema)),
          `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
        ),
      ];
    }
  }
  return [];
}

/**
 * validateStructuralSchema checks a version's openAPIV3Schema (at `fieldPath`, e.g.
 * `spec.versions[0].schema.openAPIV3Schema`) as the apiserver does on CRD writes. The scale
 * subresource puts no constraint on the schema in 1.32 (its paths are checked with the CRD).
 */
export function validateStructuralSchema(
  schema: JSONSchemaProps,
  fieldPath: string,
  options: { statusSubresource: boolean; scaleSubresource: boolean },
): FieldError[] {
  const errors: FieldError[] = [];
  if (options.statusSubresource) errors.push(...statusRootErrors(schema, fieldPath));
  if (schema.nullable === true) errors.push(forbidden(`${fieldPath}.nullable`, 'nullable cannot be true at the root'));
  const conversionError = structuralConversionError(schema);
  if (conversionError === undefined) {
    const structural = validateStructuralRules(schema, fieldPath);
    errors.push(...(structural.length > 0 ? structural : validateDefaults(schema, fieldPath)));
  }
  errors.push(...validateSchemaKeywords(schema, fieldPath));
  if (errors.length === 0 && conversionError !== undefined) errors.push(invalid(fieldPath, '', conversionError));
  return errors;
}
