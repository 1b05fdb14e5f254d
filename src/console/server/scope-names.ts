/** How the console names the scopes a view needs in its refusals: as the tokens file may write them. */
import { SCOPE_BASE } from '../../core/auth.ts';

/** scopeList names scopes short (`gmail.readonly`, `compute`), one outside the common base by its URL, joined by commas. */
export function scopeList(scopes: readonly string[]): string {
  return scopes.map((scope) => (scope.startsWith(`${SCOPE_BASE}/`) ? scope.slice(SCOPE_BASE.length + 1) : scope)).join(', ');
}
