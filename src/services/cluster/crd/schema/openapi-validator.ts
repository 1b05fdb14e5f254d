/**
 * OpenAPI v3 value validation of a custom object, as kube-openapi's SchemaValidator runs it for the
 * apiserver (`k8s.io/kube-openapi/pkg/validation/validate`): the same validators in the same
 * order (type, allOf/anyOf/oneOf/not, string, format, number, items, enum, object), the same
 * match counting for anyOf/oneOf, and the same texts (`spec.replicas in body should be less than
 * or equal to 10`). The result is a list of kube-openapi errors; `openapi-errors.ts` turns them
 * into the apiserver's field errors.
 */
import { ownValue } from '../../../../core/own.ts';
import type { JSONSchemaProps } from '../types.ts';
import { correlatedEqual, listCorrelation } from './correlation.ts';
import { formatValid, supportedFormat } from './formats.ts';
import { goFloat, goNumber, isInt64, isJsonInteger, isJsonObject, jsonEqual } from './json-values.ts';
import { compilePattern, patternMatches } from './regex.ts';

/** OpenApiErrorCode is kube-openapi's error code of a validation failure. */
export type OpenApiErrorCode =
  | 'InvalidType'
  | 'Required'
  | 'TooLong'
  | 'TooShort'
  | 'Pattern'
  | 'Enum'
  | 'MultipleOf'
  | 'Max'
  | 'Min'
  | 'Unique'
  | 'MaxItems'
  | 'MinItems'
  | 'TooFewProperties'
  | 'TooManyProperties'
  | 'UnallowedProperty'
  | 'MultipleOfMustBePositive';

/** OpenApiError is one kube-openapi error: a `Validation` (code, name, value) or a composite text (anyOf…). */
export type OpenApiError =
  | {
      readonly kind: 'validation';
      readonly code: OpenApiErrorCode;
      readonly name: string;
      readonly value?: unknown;
      readonly valid?: number;
      readonly values?: readonly unknown[];
      readonly message: string;
    }
  | { readonly kind: 'plain'; readonly message: string };

class Result {
  readonly errors: OpenApiError[] = [];
  private messages: Set<string> | undefined;
  matchCount = 0;

  add(error: OpenApiError): void {
    // kube-openapi keeps one error per message.
    this.messages ??= new Set();
    if (this.messages.has(error.message)) return;
    this.messages.add(error.message);
    this.errors.push(error);
  }

  merge(...others: (Result | undefined)[]): this {
    for (const other of others) {
      if (other === undefined) continue;
      if (other.errors.length > 0) for (const error of other.errors) this.add(error);
      this.matchCount += other.matchCount;
    }
    return this;
  }

  /** applied merges the result of one validator that applied, counting it as a match. */
  applied(other: Result | undefined): void {
    if (other === undefined) return;
    this.merge(other);
    this.matchCount++;
  }

  get valid(): boolean {
    return this.errors.length === 0;
  }
}

const IN = 'body';

type Kind = 'null' | 'boolean' | 'string' | 'int' | 'float' | 'array' | 'object';

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return isInt64(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

function validation(
  code: OpenApiErrorCode,
  name: string,
  message: string,
  extra: { value?: unknown; valid?: number; values?: readonly unknown[] } = {},
): OpenApiError {
  return { kind: 'validation', code, name, message, ...extra };
}

function invalidType(name: string, typeName: string, value: unknown): OpenApiError {
  const message =
    typeof value === 'string' ? `${name} in ${IN} must be of type ${typeName}: ${JSON.stringify(value)}` : `${name} in ${IN} must be of type ${typeName}`;
  return validation('InvalidType', name, message, { value });
}

/** The types kube-openapi sees for a node: x-kubernetes-int-or-string means `integer,string`. */
function typesOf(schema: JSONSchemaProps): readonly string[] {
  if (schema['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return schema.type === undefined || schema.type === '' ? [] : [schema.type];
}

/**
 * Old is the old object's value correlated with the node being validated (on updates): the same
 * member of an object or map, the item with the same keys of a map list; other list items have none.
 */
export interface Old {
  readonly value: unknown;
}

/**
 * validateValue runs one schema node's validators over `data` at `path` (dotted, `''` at the root).
 * With `old`, errors of a node whose value did not change from its correlated old value are
 * dropped (1.32's validation ratcheting: they become warnings the apiserver does not return);
 * `correlation.ts` says what correlates and what counts as unchanged.
 */
export function validateValue(schema: JSONSchemaProps, data: unknown, path: string, old?: Old): Result {
  const result = validateNode(schema, data, path, old);
  if (old === undefined || result.valid || !correlatedEqual(schema, data, old.value)) return result;
  const ratcheted = new Result();
  ratcheted.matchCount = result.matchCount;
  return ratcheted;
}

function validateNode(schema: JSONSchemaProps, data: unknown, path: string, old: Old | undefined): Result {
  const result = new Result();
  const types = typesOf(schema);
  const format = supportedFormat(schema.format);
  const kind = kindOf(data);
  if (kind === 'null') {
    if (types.length > 0 || format !== '') result.merge(typeCheck(types, schema.nullable === true, format, data, kind, path));
    result.merge(enumCheck(schema, data, path));
    return result;
  }
  // The validators in kube-openapi's order; each one that applies adds its result and one match.
  if (types.length > 0 || format !== '') result.applied(typeCheck(types, schema.nullable === true, format, data, kind, path));
  result.applied(junctorCheck(schema, data, path, old));
  if (kind === 'string') {
    result.applied(stringCheck(schema, data as string, path));
    if (format !== '') result.applied(formatCheck(format, data as string, path));
  }
  if (kind === 'int' || kind === 'float') result.applied(numberCheck(schema, data as number, kind, path));
  if (kind === 'array') result.applied(sliceCheck(schema, data as unknown[], path, old));
  result.applied(enumCheck(schema, data, path));
  if (kind === 'object') result.applied(objectCheck(schema, data as Record<string, unknown>, path, old));
  result.matchCount++;
  return result;
}

function typeCheck(types: readonly string[], nullable: boolean, format: string, data: unknown, kind: Kind, path: string): Result {
  const result = new Result();
  result.matchCount++;
  if (kind === 'null') {
    if (types.length > 0 && !types.includes('null') && !nullable) result.add(invalidType(path, types.join(','), 'null'));
    return result;
  }
  const schemaType = kind === 'int' ? 'integer' : kind === 'float' ? 'number' : kind;
  const dataFormat = kind === 'int' ? 'int64' : kind === 'float' ? 'float64' : '';
  const isFloatInt = kind === 'float' && isJsonInteger(data as number) && types.includes('integer');
  const isIntFloat = kind === 'int' && types.includes('number');
  if (kind !== 'string' && kind !== 'array' && format !== '' && !(types.includes(schemaType) || dataFormat === format || isFloatInt || isIntFloat)) {
    result.add(invalidType(path, format, dataFormat));
    return result;
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && (kind === 'string' || kind === 'array')) return result;
  if (!(types.includes(schemaType) || isFloatInt || isIntFloat)) result.add(invalidType(path, types.join(','), schemaType));
  return result;
}

function junctorCheck(schema: JSONSchemaProps, data: unknown, path: string, old: Old | undefined): Result {
  if (schema.anyOf === undefined && schema.oneOf === undefined && schema.allOf === undefined && schema.not === undefined) {
    // Nothing to check: a result with the one match kube-openapi counts for this validator.
    const empty = new Result();
    empty.matchCount = 1;
    return empty;
  }
  const main = new Result();
  const anyOf = schema.anyOf ?? [];
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let succeeded = false;
    for (const alternative of anyOf) {
      const result = validateNode(alternative, data, path, old);
      if (result.valid) {
        best = undefined;
        succeeded = true;
        firstSuccess ??= result;
        break;
      }
      if (best === undefined || result.matchCount > best.matchCount) best = result;
    }
    if (!succeeded) main.add({ kind: 'plain', message: `${JSON.stringify(path)} must validate at least one schema (anyOf)` });
    if (best !== undefined) main.merge(best);
    else if (firstSuccess !== undefined) main.merge(firstSuccess);
  }
  const oneOf = schema.oneOf ?? [];
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const alternative of oneOf) {
      const result = validateNode(alternative, data, path, old);
      if (result.valid) {
        validated++;
        best = undefined;
        firstSuccess ??= result;
        continue;
      }
      if (validated === 0 && (best === undefined || result.matchCount > best.matchCount)) best = result;
    }
    if (validated !== 1) {
      const detail = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      main.add({ kind: 'plain', message: `${JSON.stringify(path)} must validate one and only one schema (oneOf). ${detail}` });
      if (best !== undefined) main.merge(best);
    } else if (firstSuccess !== undefined) {
      main.merge(firstSuccess);
    }
  }
  const allOf = schema.allOf ?? [];
  if (allOf.length > 0) {
    let validated = 0;
    for (const part of allOf) {
      const result = validateNode(part, data, path, old);
      if (result.valid) validated++;
      main.merge(result);
    }
    if (validated !== allOf.length) {
      main.add({ kind: 'plain', message: `${JSON.stringify(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` });
    }
  }
  if (schema.not !== undefined && validateNode(schema.not, data, path, old).valid) {
    main.add({ kind: 'plain', message: `${JSON.stringify(path)} must not validate the schema (not)` });
  }
  main.matchCount++;
  return main;
}

/** runeCount is Go's utf8.RuneCountInString. */
function runeCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function stringCheck(schema: JSONSchemaProps, data: string, path: string): Result {
  const result = new Result();
  if (schema.maxLength !== undefined && runeCount(data) > schema.maxLength) {
    result.add(validation('TooLong', path, `${path} in ${IN} should be at most ${schema.maxLength} chars long`, { value: data, valid: schema.maxLength }));
    return result;
  }
  if (schema.minLength !== undefined && runeCount(data) < schema.minLength) {
    result.add(validation('TooShort', path, `${path} in ${IN} should be at least ${schema.minLength} chars long`, { value: data, valid: schema.minLength }));
    return result;
  }
  if (schema.pattern !== undefined && schema.pattern !== '') {
    const compiled = compilePattern(schema.pattern);
    if (!compiled.ok) {
      result.add(validation('Pattern', path, `${path} in ${IN} should match '${schema.pattern}, but pattern is invalid: ${compiled.error}'`, { value: data }));
    } else if (!patternMatches(compiled.regex, data)) {
      result.add(validation('Pattern', path, `${path} in ${IN} should match '${schema.pattern}'`, { value: data }));
    }
  }
  return result;
}

function formatCheck(format: string, data: string, path: string): Result {
  const result = new Result();
  if (!formatValid(format, data)) result.add(invalidType(path, format, data));
  return result;
}

/** A bound as kube-openapi prints it: `%v` of the int64 it was truncated to, or of the float64. */
const printBound = (bound: number, asInt: boolean): string => (asInt && Number.isFinite(bound) ? BigInt(Math.trunc(bound)).toString() : goFloat(bound));

function numberCheck(schema: JSONSchemaProps, data: number, kind: Kind, path: string): Result {
  // kube-openapi as 1.32 vendors it checks against the value's own Go type: an int64 value
  // against the bound truncated to int64 (printed as such), a float64 against the float bound.
  const result = new Result();
  const multiple = new Result();
  const minimum = new Result();
  const maximum = new Result();
  const native = kind === 'int';
  if (schema.multipleOf !== undefined) {
    const factor = schema.multipleOf;
    if (native) {
      const intFactor = Math.trunc(factor);
      if (intFactor <= 0)
        multiple.add(
          validation('MultipleOfMustBePositive', path, `factor MultipleOf declared for ${path} must be positive: ${intFactor}`, { value: intFactor }),
        );
      else if (BigInt(data) % BigInt(intFactor) !== 0n)
        multiple.add(validation('MultipleOf', path, `${path} in ${IN} should be a multiple of ${intFactor}`, { value: data }));
    } else if (factor <= 0) {
      multiple.add(
        validation('MultipleOfMustBePositive', path, `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}`, { value: factor }),
      );
    } else {
      const quotient = factor < 1 ? (1 / factor) * data : data / factor;
      if (!isJsonInteger(quotient))
        multiple.add(validation('MultipleOf', path, `${path} in ${IN} should be a multiple of ${goFloat(factor)}`, { value: data }));
    }
  }
  if (schema.maximum !== undefined) {
    const limit = native ? Math.trunc(schema.maximum) : schema.maximum;
    const exclusive = schema.exclusiveMaximum === true;
    if ((!exclusive && data > limit) || (exclusive && data >= limit)) {
      const words = exclusive ? 'should be less than' : 'should be less than or equal to';
      maximum.add(validation('Max', path, `${path} in ${IN} ${words} ${printBound(limit, native)}`, { value: data }));
    }
  }
  if (schema.minimum !== undefined) {
    const limit = native ? Math.trunc(schema.minimum) : schema.minimum;
    const exclusive = schema.exclusiveMinimum === true;
    if ((!exclusive && data < limit) || (exclusive && data <= limit)) {
      const words = exclusive ? 'should be greater than' : 'should be greater than or equal to';
      minimum.add(validation('Min', path, `${path} in ${IN} ${words} ${printBound(limit, native)}`, { value: data }));
    }
  }
  result.merge(multiple, minimum, maximum);
  result.matchCount++;
  return result;
}

function sliceCheck(schema: JSONSchemaProps, data: unknown[], path: string, old: Old | undefined): Result {
  const result = new Result();
  const correlate = old === undefined ? () => undefined : listCorrelation(schema, old.value);
  const items = schema.items;
  if (items !== undefined && !Array.isArray(items)) {
    for (let index = 0; index < data.length; index++) result.merge(validateValue(items, data[index], `${path}[${index}]`, correlate(data[index])));
  } else if (Array.isArray(items)) {
    for (let index = 0; index < items.length && index < data.length; index++) result.merge(validateValue(items[index]!, data[index], `${path}[${index}]`));
  }
  const size = data.length;
  if (schema.minItems !== undefined && size < schema.minItems) {
    result.add(validation('MinItems', path, `${path} in ${IN} should have at least ${schema.minItems} items`, { value: size, valid: schema.minItems }));
  }
  if (schema.maxItems !== undefined && size > schema.maxItems) {
    result.add(validation('MaxItems', path, `${path} in ${IN} should have at most ${schema.maxItems} items`, { value: size, valid: schema.maxItems }));
  }
  if (schema.uniqueItems === true) {
    const duplicated = data.some((item, index) => data.slice(0, index).some((earlier) => jsonEqual(earlier, item)));
    if (duplicated) result.add(validation('Unique', path, `${path} in ${IN} shouldn't contain duplicates`));
  }
  result.matchCount++;
  return result;
}

/** goPrint is Go's `%v` of a decoded JSON value (enum lists in messages). */
function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((key) => `${key}:${goPrint(value[key])}`).join(' ')}]`;
  }
  return String(value);
}

/**
 * enumMatches is kube-openapi's enum test: the value converted to each enum value's Go type, then
 * compared. So null never matches (not even a null in the enum), a number is truncated to an
 * integer enum value, and an integer converts to a one-rune string for a string enum value.
 */
function enumMatches(allowed: unknown, data: unknown): boolean {
  if (allowed === null || allowed === undefined || data === null || data === undefined) return false;
  if (typeof allowed === 'number' && typeof data === 'number') return (isInt64(allowed) ? Math.trunc(data) : data) === allowed;
  if (typeof allowed === 'string' && typeof data === 'number' && isInt64(data)) {
    const rune = data >= 0 && data <= 0x10ffff && !(data >= 0xd800 && data <= 0xdfff) ? String.fromCodePoint(data) : '\uFFFD';
    return rune === allowed;
  }
  return jsonEqual(allowed, data);
}

function enumCheck(schema: JSONSchemaProps, data: unknown, path: string): Result | undefined {
  const values = schema.enum;
  if (values === undefined || values.length === 0) return undefined;
  const result = new Result();
  if (values.some((value) => enumMatches(value, data))) return result;
  // A null value prints as "null" in the field error, as Go prints a nil one.
  result.add(validation('Enum', path, `${path} in ${IN} should be one of ${goPrint(values)}`, { value: data ?? 'null', values }));
  return result;
}

function objectCheck(schema: JSONSchemaProps, data: Record<string, unknown>, path: string, old: Old | undefined): Result {
  const previous = old !== undefined && isJsonObject(old.value) ? old.value : undefined;
  // Members correlate by name; the root's apiVersion and kind never ratchet.
  const member = (name: string): Old | undefined =>
    previous === undefined || !Object.hasOwn(previous, name) || (path === '' && (name === 'apiVersion' || name === 'kind'))
      ? undefined
      : { value: previous[name] };
  const result = new Result();
  const keys = Object.keys(data);
  const properties = schema.properties ?? {};
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
    result.add(
      validation('TooFewProperties', path, `${path} in ${IN} should have at least ${schema.minProperties} properties`, {
        value: keys.length,
        valid: schema.minProperties,
      }),
    );
  }
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    result.add(
      validation('TooManyProperties', path, `${path} in ${IN} should have at most ${schema.maxProperties} properties`, {
        value: keys.length,
        valid: schema.maxProperties,
      }),
    );
  }
  const additional = schema.additionalProperties;
  if (additional === false) {
    for (const key of keys) {
      if (ownValue(properties, key) === undefined)
        result.add(validation('UnallowedProperty', path, `${path}.${key} in ${IN} is a forbidden property`, { value: key }));
    }
  } else if (additional !== undefined && additional !== true) {
    for (const key of keys) {
      if (ownValue(properties, key) === undefined) result.merge(validateValue(additional, data[key], `${path}.${key}`, member(key)));
    }
  }
  for (const name of keys) {
    const property = ownValue(properties, name);
    if (property !== undefined) result.merge(validateValue(property, data[name], path === '' ? name : `${path}.${name}`, member(name)));
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(data, name)) result.add(validation('Required', `${path}.${name}`, `${path}.${name} in ${IN} is required`));
  }
  return result;
}
