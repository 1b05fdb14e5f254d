/**
 * Typed fields of a mail request body, read as Google's JSON front end (ESF) reads them before
 * Gmail sees the request: a value of the wrong JSON type never reaches the handler but is a 400
 * INVALID_ARGUMENT naming the proto field by its snake_case path and index, with the value as
 * JSON — `Invalid value at 'add_label_ids[0]' (TYPE_STRING), 5`. The wording is the same one
 * compute's body decoder answers (src/services/compute/shared/decode-resource.ts, from Google's
 * front end); the `google.rpc.BadRequest` detail with one field violation is what Google's newer
 * APIs attach to these errors (e.g. Sheets' `Invalid value at 'data.values' …` answers).
 */
import { MailError } from './errors.ts';

const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/** invalidValueAt is the front end's 400 for a body value whose JSON type does not fit its proto field. */
export function invalidValueAt(field: string, protoType: string, value: unknown): MailError {
  const message = `Invalid value at '${field}' (${protoType}), ${JSON.stringify(value)}`;
  return new MailError(400, 'invalid', 'INVALID_ARGUMENT', message, {}, [{ '@type': BAD_REQUEST, fieldViolations: [{ field, description: message }] }]);
}

/** invalidPayload is the front end's 400 for a body whose shape does not fit the request message. */
export function invalidPayload(detail: string): MailError {
  const message = `Invalid JSON payload received. ${detail}`;
  return new MailError(400, 'invalid', 'INVALID_ARGUMENT', message, {}, [{ '@type': BAD_REQUEST, fieldViolations: [{ description: message }] }]);
}

/** protoFieldName is a JSON (lowerCamel) field name as the front end names it in errors (`addLabelIds` → `add_label_ids`). */
export function protoFieldName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * stringListField reads a `repeated string` field (`addLabelIds`) of a request body: absent or
 * null is empty; a single string stands for a one-item list, as fogbank has always read it; a
 * `null` item, or an item (or whole value) that is not a string, is the front end's 400.
 */
export function stringListField(body: Readonly<Record<string, unknown>>, jsonName: string): string[] {
  // Own members only: a body never lends `constructor` or `toString` from Object.prototype.
  const value = Object.hasOwn(body, jsonName) ? body[jsonName] : undefined;
  const field = protoFieldName(jsonName);
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) throw invalidValueAt(field, 'TYPE_STRING', value);
  return value.map((item: unknown, index) => {
    if (item === null) throw invalidPayload(`Null values are not allowed in repeated field '${field}'.`);
    if (typeof item !== 'string') throw invalidValueAt(`${field}[${index}]`, 'TYPE_STRING', item);
    return item;
  });
}
