/**
 * One description of each wire type drives both request decoding (type checks, unknown-field
 * detection for fieldValidation, pruning) and the OpenAPI v3 documents kubectl reads, so what
 * `kubectl explain` shows is exactly what the server validates.
 */
import { ownValue, setOwn } from '../../../core/own.ts';

/** Schema is a wire type: the OpenAPI v3 subset the cluster resources need. */
export type Schema =
  | { readonly $ref: string }
  | {
      readonly type: 'object';
      /** The Go struct name, for decode errors (`Go struct field PolicyRule.rules.verbs`). */
      readonly goName: string;
      readonly properties: Readonly<Record<string, Schema>>;
      readonly required?: readonly string[];
      readonly description?: string;
      readonly mapType?: 'atomic';
    }
  | {
      readonly type: 'string';
      /** `byte` is base64 data (Go `[]byte`); the time formats are RFC 3339 instants. */
      readonly format?: 'date-time' | 'micro-time' | 'byte';
      readonly description?: string;
      readonly enum?: readonly string[];
      /** The Go type when it is a named string type (`v1.ManagedFieldsOperationType`), for decode errors. */
      readonly goType?: string;
    }
  | { readonly type: 'integer'; readonly format: 'int32' | 'int64'; readonly description?: string }
  | { readonly type: 'number'; readonly format: 'double'; readonly description?: string }
  /** A value given as a number or a string: `intstr.IntOrString` (ports) or `resource.Quantity` (`500m`, `1Gi`). */
  | { readonly type: 'int-or-string'; readonly goType: 'intstr.IntOrString' | 'resource.Quantity'; readonly description?: string }
  | { readonly type: 'boolean'; readonly description?: string }
  | {
      readonly type: 'array';
      readonly items: Schema;
      readonly listType?: 'atomic' | 'set' | 'map';
      readonly listMapKeys?: readonly string[];
      /** Defaults of key fields an item may leave out (`protocol: TCP` of ports), which key it as if set, as structured-merge-diff does. */
      readonly listMapKeyDefaults?: Readonly<Record<string, string | number | boolean>>;
      /** The Go `patchStrategy` tag strategic merge patch follows (absent: the list is replaced whole). */
      readonly patchStrategy?: 'merge' | 'retainKeys' | 'merge,retainKeys';
      /** The Go `patchMergeKey` tag: the field identifying items of a merged list of objects. */
      readonly patchMergeKey?: string;
      readonly description?: string;
    }
  | { readonly type: 'map'; readonly values: Schema; readonly description?: string }
  /** Free-form JSON (managedFields' fieldsV1). */
  | { readonly type: 'any'; readonly description?: string };

/** SchemaSet names the types one group-version uses, by their OpenAPI component name. */
export type SchemaSet = Readonly<Record<string, Schema>>;

/** DecodeResult is a body checked against its schema: the pruned object, unknown fields, and a type problem if any. */
export interface DecodeResult {
  readonly value: Record<string, unknown>;
  readonly unknownFields: readonly string[];
  /** A type mismatch, worded as Go's JSON decoder words it; the request is then a 400. */
  readonly typeError?: string;
}

/**
 * decodeWithSchema walks `body` against the schema named `root`, dropping unknown and null fields.
 * A `null` list item becomes its type's zero value, as Go's decoder leaves it (`rules: [null]` is one
 * empty PolicyRule, which validation then answers field by field). Member names are looked up and
 * stored as own properties only, so `__proto__` or `constructor` are ordinary (unknown) names.
 */
export function decodeWithSchema(body: Record<string, unknown>, root: string, schemas: SchemaSet): DecodeResult {
  const unknownFields: string[] = [];
  let typeError: string | undefined;
  const resolve = (schema: Schema): Exclude<Schema, { $ref: string }> => {
    let current = schema;
    while ('$ref' in current) {
      const next = schemas[current.$ref];
      if (next === undefined) throw new Error(`schema ${current.$ref} is not defined`);
      current = next;
    }
    return current;
  };
  const goType = (schema: Schema): string => {
    const s = resolve(schema);
    switch (s.type) {
      case 'object':
        return `v1.${s.goName}`;
      case 'string':
        if (s.format === 'byte') return '[]uint8';
        return s.format === 'date-time' ? 'v1.Time' : s.format === 'micro-time' ? 'v1.MicroTime' : (s.goType ?? 'string');
      case 'integer':
        return s.format;
      case 'number':
        return 'float64';
      case 'int-or-string':
        return s.goType;
      case 'boolean':
        return 'bool';
      case 'array':
        return `[]${goType(s.items)}`;
      case 'map':
        return `map[string]${goType(s.values)}`;
      case 'any':
        return 'interface {}';
    }
  };
  const jsonType = (value: unknown): string => {
    if (Array.isArray(value)) return 'array';
    if (typeof value === 'object') return 'object';
    return typeof value === 'boolean' ? 'bool' : typeof value;
  };
  const mismatch = (value: unknown, schema: Schema, struct: string, path: string): undefined => {
    typeError ??= `json: cannot unmarshal ${jsonType(value)} into Go struct field ${struct}.${path} of type ${goType(schema)}`;
    return undefined;
  };
  // Walks one value; `struct` and `path` name the Go field holding it (indices dropped, as Go does).
  const walk = (value: unknown, schema: Schema, struct: string, path: string, where: string): unknown => {
    if (value === null) return undefined;
    const s = resolve(schema);
    switch (s.type) {
      case 'any':
        return value;
      case 'string':
        if (typeof value !== 'string') return mismatch(value, schema, struct, path);
        if (s.format === 'byte') {
          const bad = base64Problem(value);
          if (bad !== undefined) typeError ??= bad;
          return value;
        }
        if (s.format !== undefined && value !== '' && Number.isNaN(Date.parse(value))) {
          const layout = s.format === 'micro-time' ? '2006-01-02T15:04:05.000000Z07:00' : '2006-01-02T15:04:05Z07:00';
          typeError ??= `parsing time "${value}" as "${layout}": cannot parse "${value}" as "2006"`;
          return undefined;
        }
        return value;
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value)) return mismatch(value, schema, struct, path);
        return value;
      case 'number':
        if (typeof value !== 'number') return mismatch(value, schema, struct, path);
        return value;
      case 'int-or-string':
        if (typeof value === 'string') {
          if (s.goType === 'resource.Quantity' && !QUANTITY.test(value)) typeError ??= QUANTITY_MESSAGE;
          return value;
        }
        if (typeof value !== 'number' || (s.goType === 'intstr.IntOrString' && !Number.isInteger(value))) return mismatch(value, schema, struct, path);
        return value;
      case 'boolean':
        if (typeof value !== 'boolean') return mismatch(value, schema, struct, path);
        return value;
      case 'array': {
        if (!Array.isArray(value)) return mismatch(value, schema, struct, path);
        return value.map((item, index) => (item === null ? zeroValue(s.items) : (walk(item, s.items, struct, path, `${where}[${index}]`) ?? null)));
      }
      case 'map': {
        if (typeof value !== 'object' || Array.isArray(value)) return mismatch(value, schema, struct, path);
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          const decoded = walk(item, s.values, struct, path, `${where}.${key}`);
          if (decoded !== undefined) setOwn(out, key, decoded);
        }
        return out;
      }
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) return mismatch(value, schema, struct, path);
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          const fieldPath = where === '' ? key : `${where}.${key}`;
          const property = ownValue(s.properties, key);
          if (property === undefined) {
            unknownFields.push(fieldPath);
            continue;
          }
          const decoded = walk(item, property, s.goName, path === '' ? key : `${path}.${key}`, fieldPath);
          if (decoded !== undefined) setOwn(out, key, decoded);
        }
        return out;
      }
    }
  };
  // Go's zero value of a list item's type: an empty struct, "", 0, false; lists, maps and free JSON stay null.
  const zeroValue = (schema: Schema): unknown => {
    const s = resolve(schema);
    switch (s.type) {
      case 'object':
        return {};
      case 'string':
        // A zero Time is written as null.
        return s.format === undefined ? '' : null;
      case 'integer':
      case 'number':
        return 0;
      case 'boolean':
        return false;
      default:
        return null;
    }
  };
  const value = walk(body, { $ref: root }, '', '', '') as Record<string, unknown> | undefined;
  return { value: value ?? {}, unknownFields, ...(typeError === undefined ? {} : { typeError }) };
}

/** QUANTITY is the syntax of a `resource.Quantity` string (k8s.io/apimachinery `pkg/api/resource`). */
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** base64Problem is Go's encoding/base64 (StdEncoding) error for a malformed `[]byte` field, or undefined. */
export function base64Problem(value: string): string | undefined {
  const clean = value.replace(/[\r\n]/g, '');
  for (let index = 0; index < clean.length; index++) {
    const char = clean[index]!;
    if (/[A-Za-z0-9+/]/.test(char)) continue;
    if (char === '=' && index >= clean.length - 2 && clean.length % 4 === 0) continue;
    return `illegal base64 data at input byte ${index}`;
  }
  // Go reports an incomplete last quantum at its start.
  if (clean.length % 4 !== 0) return `illegal base64 data at input byte ${clean.length - (clean.length % 4)}`;
  return undefined;
}

/** OpenApiOptions add what the OpenAPI document needs beyond the shape: each root type's group-version-kind. */
export interface OpenApiOptions {
  readonly gvks: Readonly<Record<string, { readonly group: string; readonly version: string; readonly kind: string }>>;
}

/** toOpenApiSchemas renders a SchemaSet as OpenAPI v3 `components.schemas`, with the Kubernetes extensions. */
export function toOpenApiSchemas(schemas: SchemaSet, options: OpenApiOptions): Record<string, unknown> {
  const render = (schema: Schema): Record<string, unknown> => {
    if ('$ref' in schema) return { allOf: [{ $ref: `#/components/schemas/${schema.$ref}` }], default: {} };
    switch (schema.type) {
      case 'object': {
        const properties: Record<string, unknown> = {};
        for (const [key, property] of Object.entries(schema.properties)) properties[key] = render(property);
        return {
          ...(schema.description === undefined ? {} : { description: schema.description }),
          type: 'object',
          properties,
          ...(schema.required === undefined ? {} : { required: schema.required }),
          ...(schema.mapType === undefined ? {} : { 'x-kubernetes-map-type': schema.mapType }),
        };
      }
      case 'string':
        return {
          ...(schema.description === undefined ? {} : { description: schema.description }),
          type: 'string',
          ...(schema.format === undefined ? {} : { format: schema.format === 'byte' ? 'byte' : 'date-time' }),
          ...(schema.enum === undefined ? {} : { enum: schema.enum }),
        };
      case 'integer':
        return { ...(schema.description === undefined ? {} : { description: schema.description }), type: 'integer', format: schema.format };
      case 'number':
        return { ...(schema.description === undefined ? {} : { description: schema.description }), type: 'number', format: 'double' };
      case 'int-or-string':
        // As the upstream v3 documents write IntOrString and Quantity.
        return {
          ...(schema.description === undefined ? {} : { description: schema.description }),
          ...(schema.goType === 'intstr.IntOrString' ? { format: 'int-or-string' } : {}),
          oneOf: [{ type: 'integer' }, { type: 'string' }],
          'x-kubernetes-int-or-string': true,
        };
      case 'boolean':
        return { ...(schema.description === undefined ? {} : { description: schema.description }), type: 'boolean' };
      case 'array':
        return {
          ...(schema.description === undefined ? {} : { description: schema.description }),
          type: 'array',
          items: itemSchema(schema.items),
          ...(schema.listType === undefined ? {} : { 'x-kubernetes-list-type': schema.listType }),
          ...(schema.listMapKeys === undefined ? {} : { 'x-kubernetes-list-map-keys': schema.listMapKeys }),
          ...(schema.patchMergeKey === undefined ? {} : { 'x-kubernetes-patch-merge-key': schema.patchMergeKey }),
          ...(schema.patchStrategy === undefined ? {} : { 'x-kubernetes-patch-strategy': schema.patchStrategy }),
        };
      case 'map':
        return {
          ...(schema.description === undefined ? {} : { description: schema.description }),
          type: 'object',
          additionalProperties: itemSchema(schema.values),
        };
      case 'any':
        return { ...(schema.description === undefined ? {} : { description: schema.description }), type: 'object' };
    }
  };
  // Items and map values use a plain $ref with a default, as the upstream documents do.
  const itemSchema = (schema: Schema): Record<string, unknown> =>
    '$ref' in schema ? { $ref: `#/components/schemas/${schema.$ref}`, default: {} } : render(schema);
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const rendered = render(schema);
    const gvk = options.gvks[name];
    out[name] = gvk === undefined ? rendered : { ...rendered, 'x-kubernetes-group-version-kind': [gvk] };
  }
  return out;
}
