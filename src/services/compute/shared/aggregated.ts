import { REGION_NAMES, scopePath, type Scope } from './locations.ts';

/**
 * groupByScope builds the `items` map of an aggregatedList from one page of resources: scopes
 * in order (global, every catalog region, then any other scope met, such as zones), each with
 * its resources under `field`. A scope with nothing on this page carries the real
 * NO_RESULTS_ON_PAGE warning when `includeAllScopes` asks for every scope (global always shows).
 */
export function groupByScope<T extends { readonly scope: Scope }>(
  page: readonly { readonly value: T; readonly item: Record<string, unknown> }[],
  field: string,
  includeAllScopes: boolean,
): Record<string, unknown> {
  const byScope = new Map<string, Record<string, unknown>[]>([
    ['global', []],
    ...REGION_NAMES.map((region): [string, Record<string, unknown>[]] => [`regions/${region}`, []]),
  ]);
  for (const { value, item } of page) {
    const key = scopePath(value.scope);
    let items = byScope.get(key);
    if (items === undefined) {
      items = [];
      byScope.set(key, items);
    }
    items.push(item);
  }
  const out: Record<string, unknown> = {};
  for (const [scope, items] of byScope) {
    if (items.length > 0) out[scope] = { [field]: items };
    else if (includeAllScopes || scope === 'global') out[scope] = noResultsWarning(scope);
  }
  return out;
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
