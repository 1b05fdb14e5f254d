/**
 * Field-level validation errors as the Kubernetes API server words them
 * (apimachinery `util/validation/field`): each has a machine type (the `details.causes[].reason`
 * of an Invalid Status), a field path and a human body such as `Required value: …`.
 */

/** FieldErrorType is the cause reason a field error carries on the wire. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueDuplicate'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid';

const TYPE_WORDS: Readonly<Record<FieldErrorType, string>> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
};

/** FieldError is one problem with one field of a request body. */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  /** The offending value, printed the way Go's `%q`/`%v`/`%#v` would; absent for types that omit it. */
  readonly value?: unknown;
  readonly detail: string;
}

/** required reports a missing value. */
export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

/** invalid reports a malformed value. */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

/** notSupported reports a value outside an enumeration, listing the supported ones. */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length === 0 ? '' : `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`;
  return { type: 'FieldValueNotSupported', field, value, detail };
}

/** duplicate reports a value that must be unique and is not. */
export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value, detail: '' };
}

/** forbidden reports a value that is well-formed but not allowed here. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

/** tooLong reports a value over a byte limit. */
export function tooLong(field: string, maxLength: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `must have at most ${maxLength} bytes` };
}

/** tooMany reports a list or map over its item limit (`Too many: 4: must have at most 3 items`). */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` };
}

/** typeInvalid reports a value of the wrong type (printed as `Invalid value`, reason FieldValueTypeInvalid). */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, value, detail };
}

/** immutable reports a change to a field that may not change after creation. */
export function immutable(field: string, value: unknown): FieldError {
  return invalid(field, value, 'field is immutable');
}

/** fieldErrorBody is the message of one error without its field (`details.causes[].message`). */
export function fieldErrorBody(error: FieldError): string {
  const words = TYPE_WORDS[error.type];
  const omitsValue = error.type === 'FieldValueRequired' || error.type === 'FieldValueForbidden' || error.type === 'FieldValueTooLong';
  let body = omitsValue ? words : `${words}: ${goValue(error.value)}`;
  if (error.detail !== '') body += `: ${error.detail}`;
  return body;
}

/** fieldErrorText is `<field>: <body>`, as errors print in an Invalid message. */
export function fieldErrorText(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

/** aggregateFieldErrors joins distinct error texts as Go's utilerrors aggregate does: one bare, several in brackets. */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map(fieldErrorText))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** GoLiteral is a value already printed the way Go's `%#v` prints it (a struct such as `rbac.RoleRef{…}`, `map[string]string{"app":"web"}`), written as is. */
export class GoLiteral {
  constructor(readonly text: string) {}
  /** toJSON keeps the text when the value travels in a JSON body. */
  toJSON(): string {
    return this.text;
  }
}

/** goValue prints a JSON value as Go's field errors do: strings quoted, numbers bare, string lists as `[]string{…}`. */
export function goValue(value: unknown): string {
  if (value instanceof GoLiteral) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return `[]string{${value.map((item) => JSON.stringify(item)).join(', ')}}`;
  }
  return JSON.stringify(value);
}
