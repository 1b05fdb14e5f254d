import type { TSchema } from '@sinclair/typebox';
import { ownValue, recordFromEntries } from '../../../core/own.ts';
import { ComputeError } from './errors.ts';

/**
 * decodeResource checks a parsed JSON body against a proto-annotated schema and returns a
 * normalised copy (int64 as strings, int32 as numbers). The first problem becomes a 400 in the
 * exact form of Google's JSON front end. `root` names the body in messages (`resource`).
 */
export function decodeResource<T>(schema: TSchema, value: unknown, root = 'resource'): T {
  if (value === undefined || value === null) return {} as T;
  return decodeValue(schema, value, root, root) as T;
}

/** invalidPayload is the front end's error for a body that does not fit the message. */
export function invalidPayload(message: string): ComputeError {
  return new ComputeError(400, 'invalid', message, 'INVALID_FIELD_VALUE', undefined, {}, 'INVALID_ARGUMENT');
}

function invalidValueAt(path: string, type: string, value: unknown): ComputeError {
  return invalidPayload(`Invalid value at '${path}' (${type}), ${JSON.stringify(value)}`);
}

function decodeValue(schema: TSchema, value: unknown, path: string, root: string): unknown {
  const protoMessage = schema['protoMessage'] as string | undefined;
  if (protoMessage !== undefined) return decodeMessage(schema, value, path, root, protoMessage);
  if (schema.type === 'array') {
    if (!Array.isArray(value)) {
      throw invalidPayload(`Invalid JSON payload received. Expected an array for repeated field at '${path}'.`);
    }
    return value.map((item: unknown, index) => {
      if (item === null) throw invalidPayload(`Invalid JSON payload received. Null values are not allowed in repeated field '${path}'.`);
      // Google's front end names the element: 'resource.properties.disks[0].boot'.
      return decodeValue(schema['items'] as TSchema, item, `${path}[${index}]`, root);
    });
  }
  if (schema.type === 'object') {
    // A proto map<string, V>.
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidPayload(`Invalid JSON payload received. Expected an object for map field at '${path}'.`);
    }
    const valueSchema = Object.values(schema['patternProperties'] as Record<string, TSchema>)[0]!;
    // Google's front end names a map value by its entry's position: 'resource.properties.labels[0].value'.
    // Keys come from input: own data properties only, so `__proto__` stays an ordinary key.
    return recordFromEntries(
      Object.entries(value).map(([key, item], index) => [key, decodeValue(valueSchema, item, `${path}[${index}].value`, root)] as const),
    );
  }
  const protoEnum = schema['protoEnum'] as string | undefined;
  if (protoEnum !== undefined) {
    const values = schema['enum'] as readonly string[];
    if (typeof value !== 'string' || !values.includes(value)) throw invalidValueAt(path, protoEnum, value);
    return value;
  }
  return decodeScalar(schema['protoType'] as string, value, path, schema);
}

function decodeMessage(schema: TSchema, value: unknown, path: string, root: string, protoMessage: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidValueAt(path, protoMessage, value);
  const properties = schema['properties'] as Record<string, TSchema>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Own properties only: `constructor` or `toString` in a body are unknown names, not Object.prototype's.
    const field = ownValue(properties, key) ?? ownValue(properties, snakeToCamel(key));
    if (field === undefined) {
      const at = path === root ? '' : ` at '${path}'`;
      throw invalidPayload(`Invalid JSON payload received. Unknown name ${JSON.stringify(key)}${at}: Cannot find field.`);
    }
    // Proto3 JSON: null means "field not set".
    if (item === null) continue;
    const jsonName = ownValue(properties, key) === undefined ? snakeToCamel(key) : key;
    out[jsonName] = decodeValue(field, item, `${path}.${camelToSnake(jsonName)}`, root);
  }
  return out;
}

function decodeScalar(protoType: string, value: unknown, path: string, schema: TSchema): unknown {
  switch (protoType) {
    case 'TYPE_STRING':
      if (typeof value !== 'string') throw invalidValueAt(path, protoType, value);
      return value;
    case 'TYPE_BOOL':
      if (typeof value !== 'boolean') throw invalidValueAt(path, protoType, value);
      return value;
    case 'TYPE_DOUBLE':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
      throw invalidValueAt(path, protoType, value);
    case 'TYPE_INT32':
    case 'TYPE_UINT32': {
      const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      const min = schema['minimum'] as number;
      const max = schema['maximum'] as number;
      if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) throw invalidValueAt(path, protoType, value);
      return number;
    }
    case 'TYPE_INT64':
    case 'TYPE_UINT64': {
      const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
      if (typeof text !== 'string' || !/^-?\d+$/.test(text)) throw invalidValueAt(path, protoType, value);
      const big = BigInt(text);
      const [min, max] = protoType === 'TYPE_INT64' ? [-(1n << 63n), (1n << 63n) - 1n] : [0n, (1n << 64n) - 1n];
      if (big < min || big > max) throw invalidValueAt(path, protoType, value);
      return big.toString();
    }
    default:
      throw new Error(`schema at ${path} has no proto type`);
  }
}

const snakeNames = new Map<string, string>();

/** camelToSnake turns a JSON field name into its proto field name (`canIpForward` → `can_ip_forward`). */
export function camelToSnake(name: string): string {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    // Field names come from schemas, so the cache stays as small as they are; unknown names
    // from request bodies are reported, never converted.
    if (snakeNames.size < 10_000) snakeNames.set(name, snake);
  }
  return snake;
}

/** snakeToCamel turns a proto field name into its JSON name (`can_ip_forward` → `canIpForward`). */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}
