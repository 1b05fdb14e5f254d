/** FLOAT_JSON is the JSON type of float and double: numbers, or the strings for non-finite values. */
export const FLOAT_JSON = 'number | "NaN" | "Infinity" | "-Infinity"';

/**
 * WELL_KNOWN_JSON maps well-known types to their proto3 JSON forms. The references `$JsonValue`
 * and `$Any` are local helper types the file emitter declares when used.
 */
export const WELL_KNOWN_JSON: ReadonlyMap<string, string> = new Map([
  ['.google.protobuf.Timestamp', 'string'],
  ['.google.protobuf.Duration', 'string'],
  ['.google.protobuf.FieldMask', 'string'],
  ['.google.protobuf.Struct', '{ [key: string]: $JsonValue }'],
  ['.google.protobuf.Value', '$JsonValue'],
  ['.google.protobuf.ListValue', '$JsonValue[]'],
  ['.google.protobuf.NullValue', 'null'],
  ['.google.protobuf.Any', '$Any'],
  ['.google.protobuf.Empty', '{ [key: string]: never }'],
  ['.google.protobuf.DoubleValue', FLOAT_JSON],
  ['.google.protobuf.FloatValue', FLOAT_JSON],
  ['.google.protobuf.Int64Value', 'string'],
  ['.google.protobuf.UInt64Value', 'string'],
  ['.google.protobuf.Int32Value', 'number'],
  ['.google.protobuf.UInt32Value', 'number'],
  ['.google.protobuf.BoolValue', 'boolean'],
  ['.google.protobuf.StringValue', 'string'],
  ['.google.protobuf.BytesValue', 'string'],
]);

/** JSON_VALUE_DECL declares the JSON value type used by Struct, Value and ListValue. */
export const JSON_VALUE_DECL =
  '/** $JsonValue is any JSON value (google.protobuf.Value). */\n' +
  'type $JsonValue = null | boolean | number | string | $JsonValue[] | { [key: string]: $JsonValue };\n';

/** ANY_DECL declares the JSON form of google.protobuf.Any: the packed message's fields plus `@type`. */
export const ANY_DECL =
  "/** $Any is google.protobuf.Any in JSON: `@type` plus the packed message's fields (or `value` for well-known types). */\n" +
  'type $Any = { "@type": string; [key: string]: unknown };\n';
