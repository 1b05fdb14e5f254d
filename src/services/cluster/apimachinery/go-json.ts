/**
 * encodeLikeGoEncoder writes a JSON value as Go's `json.NewEncoder(w).Encode` writes an
 * unstructured object (what the real server stores in annotations it computes): object keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, and a trailing newline.
 */
export function encodeLikeGoEncoder(value: unknown): string {
  return `${escapeLikeGo(JSON.stringify(sortKeys(value)))}\n`;
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;

/**
 * escapeLikeGo escapes in JSON text what Go's encoding/json escapes and JSON.stringify does not:
 * `<`, `>` and `&` (HTML-safe, the default of json.Marshal, MarshalIndent and json.Encoder) and
 * U+2028, U+2029. Text without them (the usual case) is returned unchanged.
 */
export function escapeLikeGo(text: string): string {
  if (!GO_ESCAPED.test(text)) return text;
  return text.replace(GO_ESCAPED_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
