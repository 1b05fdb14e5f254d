import type { FastifyInstance } from 'fastify';
import type { Links } from './links.ts';
import type { PagedSource } from './list-query.ts';
import { aggregatedListResponse } from './list-response.ts';
import type { Scope } from './locations.ts';
import { routeContext } from './route-context.ts';

/** AggregatedList is what one collection's aggregatedList method has of its own; the route around it is the same for all. */
export interface AggregatedList<T extends { readonly scope: Scope }> {
  /** collection is the path segment after `aggregated/`, and the field each scope lists its resources under. */
  readonly collection: string;
  /** kind is the list message's kind, e.g. `compute#instanceTemplateAggregatedList`. */
  readonly kind: string;
  /** permission is checked on the project, as the real method does. */
  readonly permission: string;
  /** source reads the project's resources across scopes, in key order. */
  readonly source: (project: string) => PagedSource<T>;
  readonly render: (resource: T, links: Links, project: string) => Record<string, unknown>;
}

/** registerAggregatedList serves `GET /projects/:project/aggregated/<collection>`: the permission first, then one page grouped by scope. */
export function registerAggregatedList<T extends { readonly scope: Scope }>(app: FastifyInstance, list: AggregatedList<T>): void {
  app.get(`/projects/:project/aggregated/${list.collection}`, async (request) => {
    const ctx = routeContext(request);
    const project = ctx.params['project']!;
    ctx.authorize({ write: false, permission: list.permission, resource: `projects/${project}` });
    const envelope = { kind: list.kind, path: `projects/${project}/aggregated/${list.collection}` };
    return aggregatedListResponse(ctx, envelope, list.collection, list.source(project), (resource) => list.render(resource, ctx.links, project));
  });
}
