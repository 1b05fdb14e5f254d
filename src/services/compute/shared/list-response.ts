import { groupByScope } from './aggregated.ts';
import { link } from './links.ts';
import { arraySource, pageFrom, parseListQuery, type PagedSource } from './list-query.ts';
import type { Scope } from './locations.ts';
import { boolParam } from './query-params.ts';
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
 * anything is read), then one page is read from the collection (see pageFrom: in name order only
 * as far as the page needs), filtered and rendered.
 */
export async function listResponse<T>(
  ctx: RouteContext,
  envelope: ListEnvelope,
  source: PagedSource<T>,
  render: (resource: T) => Record<string, unknown>,
): Promise<Record<string, unknown>>;
/** listResponse over a small fixed collection (the catalog), given rendered and in name order. */
export async function listResponse(ctx: RouteContext, envelope: ListEnvelope, load: () => Promise<Record<string, unknown>[]>): Promise<Record<string, unknown>>;
export async function listResponse<T>(
  ctx: RouteContext,
  envelope: ListEnvelope,
  source: PagedSource<T> | (() => Promise<Record<string, unknown>[]>),
  render?: (resource: T) => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const query = await parseListQuery(ctx.query);
  const page =
    render === undefined
      ? await pageFrom(positional(await (source as () => Promise<Record<string, unknown>[]>)()), (item) => item, query)
      : await pageFrom(source as PagedSource<T>, render, query);
  return wrap(
    ctx,
    envelope,
    page.items.map((entry) => entry.item),
    page.nextPageToken,
  );
}

/** aggregatedListResponse answers an aggregatedList method: one page across scopes, its resources grouped by scope under `field`. */
export async function aggregatedListResponse<T extends { readonly scope: Scope }>(
  ctx: RouteContext,
  envelope: ListEnvelope,
  field: string,
  source: PagedSource<T>,
  render: (resource: T) => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const query = await parseListQuery(ctx.query);
  const includeAllScopes = boolParam(ctx.query, 'includeAllScopes');
  const page = await pageFrom(source, render, query);
  return wrap(ctx, envelope, groupByScope(page.items, field, includeAllScopes), page.nextPageToken);
}

/** positional keys a fixed list by position (zero-padded, so key order is the given order). */
function positional(items: readonly Record<string, unknown>[]): PagedSource<Record<string, unknown>> {
  let index = 0;
  return arraySource(items, () => String(index++).padStart(9, '0'));
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
