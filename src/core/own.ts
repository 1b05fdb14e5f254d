/**
 * Own-property helpers: a key that came from a request (a JSON member name, a header, a path
 * segment) must never reach an object's prototype, neither by lookup (`table['constructor']`)
 * nor by assignment (`out['__proto__'] = …`).
 */

/** ownValue looks `key` up among `record`'s own properties only; inherited ones (`constructor`, `toString`) are absent. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** dictionary makes an empty string-keyed map with no prototype, safe to fill with keys from input. */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * recordFromEntries builds a plain object from key/value pairs as own data properties, so a
 * `__proto__` key is an ordinary member and never replaces the prototype.
 */
export function recordFromEntries<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/**
 * setOwn stores `value` under `key` as an own data property, so a `__proto__` key from input is an
 * ordinary member (a plain `record[key] = value` would replace the prototype instead).
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: NoInfer<T>): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
