import { Type, type TSchema, type Static, type TProperties, type TObject, type TArray, type TRecord, type TString, type TOptional } from '@sinclair/typebox';

/**
 * Schema builders for compute resources. Each is a TypeBox schema (so it is a JSON Schema and a
 * TypeScript type at once) annotated with the protobuf type the real service uses, so that
 * `decodeResource` can phrase type errors exactly as Google's JSON front end does
 * (`Invalid value at 'resource.x' (TYPE_BOOL), "yes"`).
 */

/** PString is a proto `string`. */
export const PString = (): TString => Type.String({ protoType: 'TYPE_STRING' });
/** PBool is a proto `bool`. */
export const PBool = () => Type.Boolean({ protoType: 'TYPE_BOOL' });
/** PInt32 is a proto `int32` (JSON number, or a numeric string). */
export const PInt32 = () => Type.Integer({ protoType: 'TYPE_INT32', minimum: -2147483648, maximum: 2147483647 });
/** PUint32 is a proto `uint32`. */
export const PUint32 = () => Type.Integer({ protoType: 'TYPE_UINT32', minimum: 0, maximum: 4294967295 });
/** PInt64 is a proto `int64`, carried as a decimal string in JSON (numbers are accepted on input). */
export const PInt64 = () => Type.String({ protoType: 'TYPE_INT64' });
/** PUint64 is a proto `uint64`, carried as a decimal string. */
export const PUint64 = () => Type.String({ protoType: 'TYPE_UINT64' });
/** PDouble is a proto `double`. */
export const PDouble = () => Type.Number({ protoType: 'TYPE_DOUBLE' });

/** PEnum is a proto enum given by its JSON names; `typeName` is its full name under google.cloud.compute.v1. */
export function PEnum<const V extends readonly [string, ...string[]]>(typeName: string, values: V) {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], protoEnum: `type.googleapis.com/google.cloud.compute.v1.${typeName}` });
}

/** PMessage is a proto message: every field optional, unknown fields rejected. */
export function PMessage<T extends TProperties>(typeName: string, fields: T): TObject<{ [K in keyof T]: TOptional<T[K]> }> {
  const optional = Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)])) as { [K in keyof T]: TOptional<T[K]> };
  return Type.Object(optional, { additionalProperties: false, protoMessage: `type.googleapis.com/google.cloud.compute.v1.${typeName}` });
}

/** PRepeated is a proto `repeated` field. */
export const PRepeated = <T extends TSchema>(item: T): TArray<T> => Type.Array(item);

/** PMap is a proto `map<string, V>`. */
export const PMap = <T extends TSchema>(value: T): TRecord<TString, T> => Type.Record(Type.String(), value);

/** Decoded is the TypeScript type a schema decodes to. */
export type Decoded<T extends TSchema> = Static<T>;
