import { badRequest } from './errors.ts';

/**
 * The one reader of compute's typed query parameters. The real front end parses each parameter
 * into its proto field and refuses a value that does not parse, naming the field in snake_case
 * with its proto type: `Invalid value at 'validate_only' (TYPE_BOOL), "maybe"`. Reading a
 * parameter here (instead of testing `=== 'true'`) is what keeps `validateOnly=maybe` from
 * quietly meaning "false" and performing the write.
 */

/** BOOL_TEXT is what a bool parameter accepts: true/false (any case, gcloud sends `True`) or 1/0. */
const BOOL_TEXT = /^(?:true|false|1|0)$/i;

/** boolParam reads a bool query parameter: absent or empty is `fallback`; anything unparseable is the real 400. */
export function boolParam(query: Record<string, unknown>, name: string, fallback = false): boolean {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? raw.map(String).join(',') : String(raw);
  if (text === '') return fallback;
  if (!BOOL_TEXT.test(text)) throw invalidParameter(name, 'TYPE_BOOL', text);
  return /^(?:true|1)$/i.test(text);
}

/** invalidParameter is the 400 for a query value that does not parse as its field's type. */
export function invalidParameter(name: string, protoType: string, text: string): ReturnType<typeof badRequest> {
  return badRequest(`Invalid value at '${snakeCase(name)}' (${protoType}), ${JSON.stringify(text)}`, name);
}

/** snakeCase turns a query parameter's JSON name into its proto field name (`validateOnly` → `validate_only`). */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
}
