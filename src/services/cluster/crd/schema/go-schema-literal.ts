/**
 * A JSONSchemaProps printed as Go's `%#v` prints the internal `apiextensions.JSONSchemaProps`
 * struct, which is the value of the one field error that carries a whole schema (`only [...]
 * fields are allowed at the root of the schema if the status subresource is enabled`). Pointer
 * fields print an address in Go; a fixed one stands in for it here.
 */
import type { JSONSchemaProps } from '../types.ts';
import { goLiteralOf } from './list-types.ts';

const POINTER = '0xc000010000';

const quote = (text: string | undefined): string => JSON.stringify(text ?? '');
const pointer = (goType: string, value: unknown): string => `(${goType})(${value === undefined ? 'nil' : POINTER})`;
const strings = (list: readonly string[] | undefined): string =>
  list === undefined ? '[]string(nil)' : `[]string{${list.map((item) => JSON.stringify(item)).join(', ')}}`;

function schemaList(list: readonly JSONSchemaProps[] | undefined): string {
  return list === undefined ? '[]apiextensions.JSONSchemaProps(nil)' : `[]apiextensions.JSONSchemaProps{${list.map(goSchemaLiteral).join(', ')}}`;
}

function schemaMap(map: Readonly<Record<string, JSONSchemaProps>> | undefined, goType: string): string {
  if (map === undefined) return `${goType}(nil)`;
  const keys = Object.keys(map).sort();
  return `${goType}{${keys.map((key) => `${JSON.stringify(key)}:${goSchemaLiteral(map[key]!)}`).join(', ')}}`;
}

function dependencies(schema: JSONSchemaProps): string {
  if (schema.dependencies === undefined) return 'apiextensions.JSONSchemaDependencies(nil)';
  const keys = Object.keys(schema.dependencies).sort();
  const entry = (value: JSONSchemaProps | string[]): string =>
    Array.isArray(value)
      ? `apiextensions.JSONSchemaPropsOrStringArray{Schema:(*apiextensions.JSONSchemaProps)(nil), Property:${strings(value)}}`
      : `apiextensions.JSONSchemaPropsOrStringArray{Schema:(*apiextensions.JSONSchemaProps)(${POINTER}), Property:[]string(nil)}`;
  return `apiextensions.JSONSchemaDependencies{${keys.map((key) => `${JSON.stringify(key)}:${entry(schema.dependencies![key]!)}`).join(', ')}}`;
}

function rules(schema: JSONSchemaProps): string {
  const list = schema['x-kubernetes-validations'];
  if (list === undefined) return 'apiextensions.ValidationRules(nil)';
  const rule = (item: NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number]): string =>
    `apiextensions.ValidationRule{Rule:${quote(item.rule)}, Message:${quote(item.message)}, MessageExpression:${quote(item.messageExpression)}, Reason:${pointer('*apiextensions.FieldValueErrorReason', item.reason)}, FieldPath:${quote(item.fieldPath)}, OptionalOldSelf:${pointer('*bool', item.optionalOldSelf)}}`;
  return `apiextensions.ValidationRules{${list.map(rule).join(', ')}}`;
}

/** goSchemaLiteral prints a schema node as Go's `%#v` of apiextensions.JSONSchemaProps. */
export function goSchemaLiteral(schema: JSONSchemaProps): string {
  const fields: [string, string][] = [
    ['ID', quote(schema.id)],
    ['Schema', quote(schema.$schema)],
    ['Ref', pointer('*string', schema.$ref)],
    ['Description', quote(schema.description)],
    ['Type', quote(schema.type)],
    ['Nullable', String(schema.nullable === true)],
    ['Format', quote(schema.format)],
    ['Title', quote(schema.title)],
    ['Default', pointer('*apiextensions.JSON', schema.default)],
    ['Maximum', pointer('*float64', schema.maximum)],
    ['ExclusiveMaximum', String(schema.exclusiveMaximum === true)],
    ['Minimum', pointer('*float64', schema.minimum)],
    ['ExclusiveMinimum', String(schema.exclusiveMinimum === true)],
    ['MaxLength', pointer('*int64', schema.maxLength)],
    ['MinLength', pointer('*int64', schema.minLength)],
    ['Pattern', quote(schema.pattern)],
    ['MaxItems', pointer('*int64', schema.maxItems)],
    ['MinItems', pointer('*int64', schema.minItems)],
    ['UniqueItems', String(schema.uniqueItems === true)],
    ['MultipleOf', pointer('*float64', schema.multipleOf)],
    ['Enum', schema.enum === undefined ? '[]apiextensions.JSON(nil)' : `[]apiextensions.JSON{${schema.enum.map(goLiteralOf).join(', ')}}`],
    ['MaxProperties', pointer('*int64', schema.maxProperties)],
    ['MinProperties', pointer('*int64', schema.minProperties)],
    ['Required', strings(schema.required)],
    ['Items', pointer('*apiextensions.JSONSchemaPropsOrArray', schema.items)],
    ['AllOf', schemaList(schema.allOf)],
    ['OneOf', schemaList(schema.oneOf)],
    ['AnyOf', schemaList(schema.anyOf)],
    ['Not', pointer('*apiextensions.JSONSchemaProps', schema.not)],
    ['Properties', schemaMap(schema.properties, 'map[string]apiextensions.JSONSchemaProps')],
    ['AdditionalProperties', pointer('*apiextensions.JSONSchemaPropsOrBool', schema.additionalProperties)],
    ['PatternProperties', schemaMap(schema.patternProperties, 'map[string]apiextensions.JSONSchemaProps')],
    ['Dependencies', dependencies(schema)],
    ['AdditionalItems', pointer('*apiextensions.JSONSchemaPropsOrBool', schema.additionalItems)],
    ['Definitions', schemaMap(schema.definitions, 'apiextensions.JSONSchemaDefinitions')],
    ['ExternalDocs', pointer('*apiextensions.ExternalDocumentation', schema.externalDocs)],
    ['Example', pointer('*apiextensions.JSON', schema.example)],
    ['XPreserveUnknownFields', pointer('*bool', schema['x-kubernetes-preserve-unknown-fields'])],
    ['XEmbeddedResource', String(schema['x-kubernetes-embedded-resource'] === true)],
    ['XIntOrString', String(schema['x-kubernetes-int-or-string'] === true)],
    ['XListMapKeys', strings(schema['x-kubernetes-list-map-keys'])],
    ['XListType', pointer('*string', schema['x-kubernetes-list-type'])],
    ['XMapType', pointer('*string', schema['x-kubernetes-map-type'])],
    ['XValidations', rules(schema)],
  ];
  return `apiextensions.JSONSchemaProps{${fields.map(([name, value]) => `${name}:${value}`).join(', ')}}`;
}
