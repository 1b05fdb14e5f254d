/**
 * JSON values as the apiserver's unstructured decoder sees them: a number is an int64 when it is
 * integral and fits, a float64 otherwise, and numbers are printed the way Go's `%v` prints those.
 */

/** JsonObject is a decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** isJsonObject is true for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TWO_63 = 2 ** 63;

/** isInt64 is true for a number Go's decoder reads as int64 (integral and within ±2^63). */
export function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= -TWO_63 && value < TWO_63;
}

/** isJsonInteger is swag's IsFloat64AJSONInteger: a float that is (nearly) a whole number within ±2^53. */
export function isJsonInteger(value: number): boolean {
  if (!Number.isFinite(value) || Math.abs(value) > 2 ** 53) return false;
  const magnitude = Math.abs(value);
  const whole = Math.trunc(magnitude);
  if (magnitude === whole) return true;
  if (magnitude < 1e-9) return whole < 1e-9;
  return (magnitude - whole) / magnitude < 1e-9;
}

/** goFloat prints a float64 as Go's `%v` does: shortest digits, exponent form below 1e-4 and from 1e+06 (`%g` with shortest precision). */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(value);
}

/** goNumber prints a decoded JSON number as Go's `%v` prints the int64 or float64 it decodes to. */
export function goNumber(value: number): string {
  return isInt64(value) ? BigInt(value).toString() : goFloat(value);
}

/** jsonEqual compares two decoded JSON values structurally (own keys only, order-insensitive for objects). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!jsonEqual(a[index], b[index])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}

/** canonicalJson is a key-sorted JSON text of a value, for identity comparisons (list sets, map-list keys). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * cloneJson deep-copies a decoded JSON value without recursion (an explicit stack), so a kept
 * subtree of any depth copies without exhausting the call stack; member names stay own data
 * properties (`__proto__` included).
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const root: unknown = Array.isArray(value) ? new Array(value.length) : {};
  const stack: [unknown, unknown][] = [[value, root]];
  while (stack.length > 0) {
    const [source, target] = stack.pop()!;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let index = 0; index < source.length; index++) {
        const item: unknown = source[index];
        if (typeof item === 'object' && item !== null) {
          const copy: unknown = Array.isArray(item) ? new Array(item.length) : {};
          out[index] = copy;
          stack.push([item, copy]);
        } else {
          out[index] = item;
        }
      }
      continue;
    }
    const out = target as Record<string, unknown>;
    for (const [key, item] of Object.entries(source as Record<string, unknown>)) {
      let copy: unknown = item;
      if (typeof item === 'object' && item !== null) {
        copy = Array.isArray(item) ? new Array(item.length) : {};
        stack.push([item, copy]);
      }
      Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    }
  }
  return root as T;
}
