import { aggregatedItems, scopedByLocation } from './aggregated.ts';
import { link } from './links.ts';
import { parseListQuery, paginate } from './list-query.ts';
import { boolParam } from './query-params.ts';
import type { Scope } from './locations.ts';
import type { RouteContext } from './route-context.ts';

/** ListEnvelope names a list response: its `kind`, the collection path (its `id`), and whether it carries a selfLink. */
export interface ListEnvelope {
  readonly kind: string;
  readonly path: string;
  /** Some list messages (SecurityPolicyList) have no selfLink field. */
  readonly selfLink?: boolean;
}

/**
 * listResponse answers a list method: the query is checked first (a bad one is a 400 before
 * anything is read), then the rendered items are filtered, ordered and cut to one page.
 */
export async function listResponse(ctx: RouteContext, envelope: ListEnvelope, load: () => Promise<Record<string, unknown>[]>): Promise<Record<string, unknown>> {
  const query = parseListQuery(ctx.query);
  const page = paginate(await load(), query);
  return wrap(ctx, envelope, page.items, page.nextPageToken);
}

/** aggregatedListResponse answers an aggregatedList method: resources grouped by scope under `field`, one page across scopes. */
export async function aggregatedListResponse<T extends { readonly scope: Scope }>(
  ctx: RouteContext,
  envelope: ListEnvelope,
  field: string,
  load: () => Promise<readonly T[]>,
  render: (resource: T) => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const query = parseListQuery(ctx.query);
  const includeAllScopes = boolParam(ctx.query, 'includeAllScopes');
  const { items, nextPageToken } = aggregatedItems(scopedByLocation(await load(), render), field, query, includeAllScopes);
  return wrap(ctx, envelope, items, nextPageToken);
}

function wrap(ctx: RouteContext, envelope: ListEnvelope, items: unknown, nextPageToken: string | undefined): Record<string, unknown> {
  return {
    kind: envelope.kind,
    id: envelope.path,
    items,
    ...(nextPageToken === undefined ? {} : { nextPageToken }),
    ...(envelope.selfLink === false ? {} : { selfLink: link(ctx.links, envelope.path) }),
  };
}
