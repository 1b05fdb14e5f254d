import type { FastifyInstance } from 'fastify';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { link } from '../shared/links.ts';
import { arraySource } from '../shared/list-query.ts';
import { listResponse } from '../shared/list-response.ts';
import { regionScope, scopePath, type Scope, zoneScope } from '../shared/locations.ts';
import { routeContext, type RouteContext } from '../shared/route-context.ts';
import { instanceGroupPath, renderInstanceGroup } from './instance-group.ts';
import type { InstanceGroupService } from './instance-group-service.ts';

/** The homes of instanceGroups and regionInstanceGroups, with what their messages are called there. */
const ROUTES: readonly {
  readonly path: string;
  readonly scopeOf: (params: Readonly<Record<string, string>>) => Scope;
  readonly listKind: string;
  readonly instancesKind: string;
  readonly requestField: string;
}[] = [
  {
    path: 'zones/:zone',
    scopeOf: (p) => zoneScope(p['zone']!),
    listKind: 'compute#instanceGroupList',
    instancesKind: 'compute#instanceGroupsListInstances',
    requestField: 'instanceGroupsListInstancesRequestResource',
  },
  {
    path: 'regions/:region',
    scopeOf: (p) => regionScope(p['region']!),
    listKind: 'compute#regionInstanceGroupList',
    instancesKind: 'compute#regionInstanceGroupsListInstances',
    requestField: 'regionInstanceGroupsListInstancesRequestResource',
  },
];

/**
 * registerInstanceGroupRoutes serves the instance groups of managed instance groups, read only:
 * instanceGroups (zonal) and regionInstanceGroups get, list and listInstances, and
 * instanceGroups aggregatedList, with the `compute.instanceGroups.*` permissions.
 */
export function registerInstanceGroupRoutes(app: FastifyInstance, groups: InstanceGroupService): void {
  for (const route of ROUTES) {
    const base = `/projects/:project/${route.path}/instanceGroups`;
    const refOf = (ctx: RouteContext) => ({ project: ctx.params['project']!, scope: route.scopeOf(ctx.params), name: ctx.params['instanceGroup']! });
    const path = (ref: ReturnType<typeof refOf>) => `projects/${ref.project}/${scopePath(ref.scope)}/instanceGroups/${ref.name}`;
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: 'compute.instanceGroups.list', resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: route.listKind, path: `projects/${project}/${scopePath(scope)}/instanceGroups` },
        groups.source(project, scope),
        (group) => renderInstanceGroup(group, ctx.links),
      );
    });
    app.get(`${base}/:instanceGroup`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      ctx.authorize({ write: false, permission: 'compute.instanceGroups.get', resource: path(ref) });
      return renderInstanceGroup(await groups.get(ref), ctx.links);
    });
    app.post(`${base}/:instanceGroup/listInstances`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      ctx.authorize({ write: false, permission: 'compute.instanceGroups.list', resource: path(ref) });
      const { group, items } = await groups.instances(ref, ctx.body, route.requestField);
      return listResponse(
        ctx,
        { kind: route.instancesKind, path: `${instanceGroupPath(group.manager)}/listInstances` },
        arraySource(items, (item) => item.instance),
        (item) => ({ instance: link(ctx.links, item.instance), status: item.status }),
      );
    });
  }
  registerAggregatedList(app, {
    collection: 'instanceGroups',
    kind: 'compute#instanceGroupAggregatedList',
    permission: 'compute.instanceGroups.list',
    source: (project) => groups.source(project),
    render: (group, links) => renderInstanceGroup(group, links),
  });
}
