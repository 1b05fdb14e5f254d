/**
 * The static types of CEL expressions in validation rules, and the declared type of `self`
 * derived from a structural schema the way the apiserver's `SchemaDeclType` does: objects with
 * properties are object types with fields, additionalProperties are maps, arrays are lists,
 * int-or-string is dyn, date/date-time are timestamps, duration is a duration, byte is bytes.
 * Every schema-derived type carries `maxElements` (the size bound the cost estimator uses) and
 * `minSerializedSize` (used to bound unbounded lists and maps by the 3 MiB request size).
 */
import type { JSONSchemaProps } from '../types.ts';

/** CelT is a static CEL type. */
export type CelT =
  | { kind: 'dyn' | 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'timestamp' | 'duration' | 'type' | 'error'; bound?: Bound }
  | { kind: 'list'; elem: CelT; bound?: Bound }
  | { kind: 'map'; key: CelT; value: CelT; bound?: Bound }
  | { kind: 'object'; name: string; fields: ReadonlyMap<string, CelT>; bound?: Bound }
  | { kind: 'opaque'; name: string; param?: CelT; bound?: Bound }
  | { kind: 'param'; name: string; bound?: Bound };

/** Bound is what a schema says about a value's size: its most elements (bytes, items, properties) and its smallest JSON form. */
export interface Bound {
  readonly maxElements: number;
  readonly minSerializedSize: number;
}

/** MAX_REQUEST_SIZE_BYTES is the apiserver's request size limit the estimator bounds unbounded values with (3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const MAX_DATETIME_SIZE_JSON = 32;
const MAX_DURATION_SIZE_JSON = 32;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MIN_DURATION_SIZE_JSON = 3;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

export const DYN: CelT = { kind: 'dyn' };
export const BOOL: CelT = { kind: 'bool' };
export const INT: CelT = { kind: 'int' };
export const UINT: CelT = { kind: 'uint' };
export const DOUBLE: CelT = { kind: 'double' };
export const STRING: CelT = { kind: 'string' };
export const BYTES: CelT = { kind: 'bytes' };
export const NULL: CelT = { kind: 'null' };
export const TIMESTAMP: CelT = { kind: 'timestamp' };
export const DURATION: CelT = { kind: 'duration' };
export const TYPE: CelT = { kind: 'type' };

/** listOf is `list(elem)`. */
export function listOf(elem: CelT): CelT {
  return { kind: 'list', elem };
}

/** mapOf is `map(key, value)`. */
export function mapOf(key: CelT, value: CelT): CelT {
  return { kind: 'map', key, value };
}

/** opaque is a library type such as `net.IP` or `optional_type(int)`. */
export function opaque(name: string, param?: CelT): CelT {
  return param === undefined ? { kind: 'opaque', name } : { kind: 'opaque', name, param };
}

/** typeName prints a type the way cel-go's checker does in its messages. */
export function typeName(t: CelT): string {
  switch (t.kind) {
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object':
      return t.name;
    case 'opaque':
      return t.param === undefined ? t.name : `${t.name}(${typeName(t.param)})`;
    case 'param':
      return t.name;
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    default:
      return t.kind;
  }
}

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** isCelIdentifier reports a name CEL accepts as an identifier: `[_a-zA-Z][_a-zA-Z0-9]*`, not a reserved word. */
export function isCelIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !RESERVED.has(name);
}

/** escapeFieldName is the name a property has in CEL (`foo-bar` → `foo__dash__bar`), or undefined when it cannot be reached from CEL. */
export function escapeFieldName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replaceAll('__', '__underscores__').replaceAll('.', '__dot__').replaceAll('-', '__dash__').replaceAll('/', '__slash__');
}

/** unescapeFieldName is the inverse of escapeFieldName for names that were escaped. */
export function unescapeFieldName(name: string): string {
  const reserved = /^__(.*)__$/.exec(name);
  if (reserved !== null && RESERVED.has(reserved[1]!)) return reserved[1]!;
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_m, word: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[word] ?? '');
}

function bounded(t: CelT, maxElements: number, minSerializedSize: number): CelT {
  return { ...t, bound: { maxElements: Math.max(0, maxElements), minSerializedSize } } as CelT;
}

/** withTypeAndObjectMeta adds `apiVersion`, `kind` and `metadata.name`/`metadata.generateName`, which rules at a resource root may always read. */
export function withTypeAndObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const props = { ...(schema.properties ?? {}) };
  props['kind'] = { type: 'string' };
  props['apiVersion'] = { type: 'string' };
  props['metadata'] = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
  return { ...schema, properties: props };
}

/** itemsSchema is the single `items` schema of an array schema. */
export function itemsSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return schema.items !== undefined && !Array.isArray(schema.items) ? schema.items : undefined;
}

/** additionalPropertiesSchema is the schema of a map's values, when the node is a map. */
export function additionalPropertiesSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** schemaDeclType is the CEL type of values of a schema node, or undefined where CEL cannot see the node (as SchemaDeclType returns nil). */
export function schemaDeclType(schema: JSONSchemaProps, isResourceRoot: boolean, typeNamePath = 'self', depth = 0): CelT | undefined {
  if (depth > 256) return undefined;
  if (schema['x-kubernetes-int-or-string'] === true) {
    const max = schema.maxLength !== undefined ? Math.max(0, schema.maxLength) * 4 : MAX_REQUEST_SIZE_BYTES - 2;
    return bounded(DYN, max, 1);
  }
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      const items = itemsSchema(s);
      if (items === undefined) return undefined;
      const elem = schemaDeclType(items, items['x-kubernetes-embedded-resource'] === true, `${typeNamePath}.@idx`, depth + 1);
      if (elem === undefined) return undefined;
      const max = s.maxItems !== undefined ? Math.max(0, s.maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / ((elem.bound?.minSerializedSize ?? 1) + 1));
      return bounded(listOf(elem), max, 2);
    }
    case 'object': {
      const additional = additionalPropertiesSchema(s);
      if (additional !== undefined) {
        const value = schemaDeclType(additional, additional['x-kubernetes-embedded-resource'] === true, `${typeNamePath}.@elem`, depth + 1);
        if (value === undefined) return undefined;
        const max =
          s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / ((value.bound?.minSerializedSize ?? 1) + 6));
        return bounded(mapOf(bounded(STRING, MAX_REQUEST_SIZE_BYTES - 2, MIN_STRING_SIZE), value), max, 2);
      }
      const fields = new Map<string, CelT>();
      const required = new Set(s.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const fieldType = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true, `${typeNamePath}.${name}`, depth + 1);
        if (fieldType === undefined) continue;
        const escaped = escapeFieldName(name);
        if (escaped !== undefined) fields.set(escaped, fieldType);
        if (required.has(name) && prop.default === undefined) minSize += name.length + (fieldType.bound?.minSerializedSize ?? 1) + 4;
      }
      // Objects (like scalars) carry no element bound: the apiserver's size estimator reports 0 for them.
      return bounded({ kind: 'object', name: typeNamePath, fields }, 0, minSize);
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return bounded(BYTES, s.maxLength !== undefined ? Math.max(0, s.maxLength) : MAX_REQUEST_SIZE_BYTES - 2, MIN_STRING_SIZE);
        case 'duration':
          return bounded(DURATION, MAX_DURATION_SIZE_JSON, MIN_DURATION_SIZE_JSON);
        case 'date':
          return bounded(TIMESTAMP, JSON_DATE_SIZE, JSON_DATE_SIZE);
        case 'date-time':
          return bounded(TIMESTAMP, MAX_DATETIME_SIZE_JSON, MIN_DATETIME_SIZE_JSON);
      }
      if (s.maxLength !== undefined) return bounded(STRING, Math.max(0, s.maxLength) * 4, MIN_STRING_SIZE);
      if (s.enum !== undefined && s.enum.length > 0) {
        const longest = Math.max(0, ...s.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
        return bounded(STRING, longest, MIN_STRING_SIZE);
      }
      return bounded(STRING, MAX_REQUEST_SIZE_BYTES - 2, MIN_STRING_SIZE);
    case 'boolean':
      return bounded(BOOL, 0, MIN_BOOL_SIZE);
    case 'number':
      return bounded(DOUBLE, 0, MIN_NUMBER_SIZE);
    case 'integer':
      return bounded(INT, 0, MIN_NUMBER_SIZE);
  }
  return undefined;
}
