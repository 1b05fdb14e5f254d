import { Kind, OptionalKind, type Static, type TSchema } from '@sinclair/typebox';
import { badRequest, invalidFieldValue, type ComputeError } from '../shared/errors.ts';

/**
 * decodeJson decodes a parsed JSON body against a TypeBox schema the way the real service reads
 * proto JSON: `null` means absent, integers may come as numbers or decimal strings and are bounded
 * by their width, enum values must be known, unknown names are rejected and output-only members
 * are dropped. Every failure is a 400 naming the field by its full path (`resource.match.expr`).
 * It returns a fresh value and never aliases the input.
 */
export function decodeJson<T extends TSchema>(schema: T, value: unknown, path: string): Static<T> {
  return decodeValue(schema, value, path) as Static<T>;
}

/** INTEGER_RANGES bounds integers by their proto width. */
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number, string]>> = {
  int32: [-2147483648, 2147483647, 'Must be a 32-bit signed integer.'],
  uint32: [0, 4294967295, 'Must be a 32-bit unsigned integer.'],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'Must be a 64-bit signed integer.'],
};

function decodeValue(schema: TSchema, value: unknown, path: string): unknown {
  switch (schema[Kind]) {
    case 'String':
      if (typeof value !== 'string') throw typeError(path, value, 'Must be a string.');
      return value;
    case 'Boolean':
      if (typeof value !== 'boolean') throw typeError(path, value, 'Must be a boolean.');
      return value;
    case 'Integer':
      return decodeInteger(schema, value, path);
    case 'Literal':
    case 'Union':
      return decodeEnum(schema, value, path);
    case 'Array': {
      if (!Array.isArray(value)) throw typeError(path, value, 'Must be an array.');
      const items = schema['items'] as TSchema;
      return value.map((item, index) => decodeValue(items, item, `${path}[${index}]`));
    }
    case 'Record':
      return decodeRecord(schema, value, path);
    case 'Object':
      return decodeObject(schema, value, path);
    default:
      throw new Error(`decodeJson: unsupported schema kind ${String(schema[Kind])} at ${path}`);
  }
}

function decodeObject(schema: TSchema, value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw typeError(path, value, 'Must be an object.');
  const properties = schema['properties'] as Record<string, TSchema>;
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    const memberSchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (memberSchema === undefined) throw unknownName(name, path);
    if (member === null || memberSchema['outputOnly'] === true) continue;
    out[name] = decodeValue(memberSchema, member, `${path}.${name}`);
  }
  for (const [name, memberSchema] of Object.entries(properties)) {
    if (memberSchema[OptionalKind] !== 'Optional' && !(name in out)) {
      throw badRequest(`Required field '${path}.${name}' not specified`, `${path}.${name}`);
    }
  }
  return out;
}

function decodeRecord(schema: TSchema, value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw typeError(path, value, 'Must be an object.');
  const patterns = schema['patternProperties'] as Record<string, TSchema>;
  const valueSchema = Object.values(patterns)[0];
  if (valueSchema === undefined) throw new Error(`decodeJson: record without value schema at ${path}`);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    out[key] = decodeValue(valueSchema, member, `${path}.${key}`);
  }
  return out;
}

function decodeInteger(schema: TSchema, value: unknown, path: string): number {
  const format = typeof schema['format'] === 'string' ? schema['format'] : 'int64';
  const range = INTEGER_RANGES[format] ?? INTEGER_RANGES['int64'];
  if (range === undefined) throw new Error('decodeJson: no int64 range');
  const [min, max, reason] = range;
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^-?\d+$/.test(value)) n = Number(value);
  else throw typeError(path, value, reason);
  if (!Number.isInteger(n) || n < min || n > max) throw typeError(path, value, reason);
  return n;
}

function decodeEnum(schema: TSchema, value: unknown, path: string): string {
  const allowed: string[] =
    schema[Kind] === 'Literal' ? [String(schema['const'])] : (schema['anyOf'] as TSchema[]).map((literal) => String(literal['const']));
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw invalidFieldValue(path, shown(value), `Value must be one of [${allowed.join(', ')}].`);
  }
  return value;
}

function typeError(path: string, value: unknown, reason: string): ComputeError {
  return invalidFieldValue(path, shown(value), reason);
}

function unknownName(name: string, path: string): ComputeError {
  return badRequest(`Invalid JSON payload received. Unknown name "${name}" at '${path}': Cannot find field.`, `${path}.${name}`);
}

/** shown renders a value the way error messages quote it: strings bare, everything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
