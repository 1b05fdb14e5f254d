/**
 * The rules ConfigMaps and Secrets share: key syntax (apimachinery `IsConfigMapKey`) and the
 * `immutable` flag (upstream `pkg/apis/core/validation`).
 */
import { forbidden, invalid, type FieldError } from '../apimachinery/field-errors.ts';
import { goLength, maxLenError, regexError } from '../apimachinery/name-rules.ts';

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** isConfigMapKey lists what is wrong with a data key (empty when valid). */
export function isConfigMapKey(key: string): string[] {
  const errors: string[] = [];
  if (goLength(key) > 253) errors.push(maxLenError(253));
  if (!CONFIG_KEY.test(key))
    errors.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errors.push("must not be '.'");
  else if (key === '..') errors.push("must not be '..'");
  else if (key.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}

/** validateKeys checks every key of a data map at `field`. */
export function validateKeys(data: unknown, field: string): FieldError[] {
  if (typeof data !== 'object' || data === null) return [];
  const errors: FieldError[] = [];
  for (const key of Object.keys(data)) for (const problem of isConfigMapKey(key)) errors.push(invalid(`${field}[${key}]`, key, problem));
  return errors;
}

const IMMUTABLE = 'field is immutable when `immutable` is set';

/** validateImmutable refuses changes to `fields` (and unsetting `immutable`) of an object stored with `immutable: true`. */
export function validateImmutable(object: Record<string, unknown>, old: Record<string, unknown>, fields: readonly string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errors: FieldError[] = [];
  for (const field of fields) if (JSON.stringify(object[field] ?? null) !== JSON.stringify(old[field] ?? null)) errors.push(forbidden(field, IMMUTABLE));
  if (object['immutable'] !== true) errors.push(forbidden('immutable', IMMUTABLE));
  return errors;
}

/** dataCount is the number of entries in the data maps, as the `Data` column counts them. */
export function dataCount(...maps: unknown[]): number {
  return maps.reduce<number>((sum, map) => sum + (typeof map === 'object' && map !== null ? Object.keys(map).length : 0), 0);
}
