import { encodePageToken, type ListQuery } from './list-query.ts';
import { REGION_NAMES, scopePath, type Scope } from './locations.ts';

/** ScopedItems are one scope's rendered items, keyed by the scope path (`global`, `regions/R`, `zones/Z`). */
export interface ScopedItems {
  readonly scope: string;
  readonly items: readonly Record<string, unknown>[];
}

/**
 * scopedByLocation groups resources into the aggregatedList scopes, rendered: global, then every
 * catalog region, then any other scope the resources live in (zones), in the order met.
 */
export function scopedByLocation<T extends { readonly scope: Scope }>(resources: readonly T[], render: (resource: T) => Record<string, unknown>): ScopedItems[] {
  const byScope = new Map<string, Record<string, unknown>[]>([['global', []], ...REGION_NAMES.map((region): [string, Record<string, unknown>[]] => [`regions/${region}`, []])]);
  for (const resource of resources) {
    const key = scopePath(resource.scope);
    let items = byScope.get(key);
    if (items === undefined) byScope.set(key, (items = []));
    items.push(render(resource));
  }
  return [...byScope].map(([scope, items]) => ({ scope, items }));
}

/**
 * aggregatedItems builds the `items` map and page token of an aggregatedList: scopes in order,
 * the filter applied per item, one page cut across scopes. Scopes without matches carry the real
 * NO_RESULTS_ON_PAGE warning when `includeAllScopes` asks for every scope.
 */
export function aggregatedItems(
  scopes: readonly ScopedItems[],
  field: string,
  query: ListQuery,
  includeAllScopes: boolean,
): { items: Record<string, unknown>; nextPageToken: string | undefined } {
  const flat: { scope: string; item: Record<string, unknown> }[] = [];
  for (const { scope, items } of scopes) for (const item of items) if (query.filter(item)) flat.push({ scope, item });
  const end = query.offset + query.maxResults;
  const page = flat.slice(query.offset, end);
  const out: Record<string, unknown> = {};
  for (const { scope } of scopes) {
    const inScope = page.filter((entry) => entry.scope === scope).map((entry) => entry.item);
    if (inScope.length > 0) out[scope] = { [field]: inScope };
    else if (includeAllScopes || scope === 'global') out[scope] = noResultsWarning(scope);
  }
  return { items: out, nextPageToken: end < flat.length ? encodePageToken(end) : undefined };
}

/** noResultsWarning is the entry for a scope with nothing on this page. */
export function noResultsWarning(scope: string): Record<string, unknown> {
  return {
    warning: {
      code: 'NO_RESULTS_ON_PAGE',
      message: `There are no results for scope '${scope}' on this page.`,
      data: [{ key: 'scope', value: scope }],
    },
  };
}
