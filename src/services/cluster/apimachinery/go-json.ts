/**
 * encodeLikeGoEncoder writes a JSON value as Go's `json.NewEncoder(w).Encode` writes an
 * unstructured object (what the real server stores in annotations it computes): object keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, and a trailing newline.
 */
export function encodeLikeGoEncoder(value: unknown): string {
  const text = JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${text}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
