/**
 * JSON merge patch (RFC 7386): objects merge key by key, `null` removes a key, anything else
 * (arrays included) replaces the target value. No maintained npm package fits this 15-line
 * algorithm without pulling a JSON-patch framework, so it is written here. Member names are
 * ordinary keys, `__proto__` and `constructor` included: read and written as own properties only.
 */
import { ownValue, setOwn } from '../../../core/own.ts';

/** applyMergePatch returns `target` with `patch` merged in; neither argument is modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete base[key];
    else setOwn(base, key, applyMergePatch(ownValue(base, key), value));
  }
  return base;
}
