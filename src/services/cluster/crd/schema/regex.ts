/**
 * Schema `pattern`s compiled with RE2 (`re2js`), as the apiserver compiles them with Go's regexp:
 * matching time is linear in the input, so no pattern from a CRD can stall the event loop, and a
 * pattern RE2 refuses gets Go's own words (`error parsing regexp: missing closing ): `(a``).
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/** CompiledPattern is a pattern that compiled, or the reason it did not. */
export type CompiledPattern = { readonly ok: true; readonly regex: RE2JS } | { readonly ok: false; readonly error: string };

const MAX_CACHED = 512;
const cache = new Map<string, CompiledPattern>();

/** compilePattern compiles a schema pattern once (bounded cache, oldest out). */
export function compilePattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let compiled: CompiledPattern;
  try {
    compiled = { ok: true, regex: RE2JS.compile(pattern) };
  } catch (error) {
    if (error instanceof RE2JSSyntaxException || error instanceof RE2JSException) {
      const message = error.message.startsWith('error parsing regexp: ') ? error.message : `error parsing regexp: ${error.message}`;
      compiled = { ok: false, error: message };
    } else {
      throw error;
    }
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

/** patternMatches is Go's `MatchString`: true when the pattern matches anywhere in `text`. */
export function patternMatches(regex: RE2JS, text: string): boolean {
  return regex.matcher(text).find();
}
