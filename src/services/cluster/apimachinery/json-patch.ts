/**
 * JSON patch (RFC 6902) as the apiserver applies it, through fast-json-patch.
 *
 * For the apiserver every member name is an ordinary key, `__proto__`, `constructor` and
 * `prototype` included (evanphx/json-patch works on Go maps). fast-json-patch walks plain objects
 * with `obj[key]`, so such a name would reach (or, for `__proto__`, be refused as) the prototype,
 * and names inherited from Object.prototype (`toString`) would look present. So the document, the
 * operations' values and their paths are run through a reversible renaming first: a key that is the
 * name of an Object.prototype member, after any number of NUL characters, gains one more leading
 * NUL (no such key can then exist), and loses it again afterwards. Array indices and `-` never match,
 * and a pointer segment holding `~` cannot unescape to such a name, so segments are renamed as written.
 *
 * Every failure while applying is the apiserver's answer to a patch that does not apply: 422 Invalid
 * with the generic text (it builds it with NewGenericServerResponse, which keeps none of the
 * library's message), whatever the library threw.
 */
import fastJsonPatch from 'fast-json-patch';
import { setOwn } from '../../../core/own.ts';
import { StatusError } from './status.ts';

const INHERITED = Object.getOwnPropertyNames(Object.prototype);
const RENAMED = new RegExp(`^\\u0000*(?:${INHERITED.map((name) => name.replace(/[$]/g, '\\$&')).join('|')})$`);

/** patchDoesNotApply is the 422 the apiserver answers when a JSON patch fails on the object. */
export function patchDoesNotApply(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

function renameKey(key: string): string {
  return RENAMED.test(key) ? `\u0000${key}` : key;
}

function restoreKey(key: string): string {
  return key.startsWith('\u0000') && RENAMED.test(key) ? key.slice(1) : key;
}

// Copies a JSON value with every object key mapped through `map`, as own data properties.
function mapKeys(value: unknown, map: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapKeys(item, map));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) setOwn(out, map(key), mapKeys(item, map));
  return out;
}

function renamePointer(pointer: unknown): unknown {
  if (typeof pointer !== 'string') return pointer;
  return pointer
    .split('/')
    .map((segment, index) => (index === 0 ? segment : renameKey(segment)))
    .join('/');
}

/** applyJsonPatch runs RFC 6902 operations on a copy of `current`; a failure is the apiserver's 422. */
export function applyJsonPatch(current: unknown, operations: readonly unknown[]): unknown {
  const renamed = operations.map((operation) => {
    if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) return operation;
    const out = mapKeys(operation, (key) => key) as Record<string, unknown>;
    if (Object.hasOwn(out, 'path')) out['path'] = renamePointer(out['path']);
    if (Object.hasOwn(out, 'from')) out['from'] = renamePointer(out['from']);
    if (Object.hasOwn(out, 'value')) out['value'] = mapKeys(out['value'], renameKey);
    return out;
  });
  let patched: unknown;
  try {
    patched = fastJsonPatch.applyPatch(mapKeys(current, renameKey), renamed as fastJsonPatch.Operation[], true, true).newDocument;
  } catch {
    // A missing path, a failed test, a move into its own child, an unknown op, a malformed operation.
    throw patchDoesNotApply();
  }
  return mapKeys(patched, restoreKey);
}
