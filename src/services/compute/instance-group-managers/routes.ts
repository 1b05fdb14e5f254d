import type { FastifyInstance } from 'fastify';
import { parseRequestId, renderOperation } from '../operations/index.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { invalidFieldValue } from '../shared/errors.ts';
import { listResponse } from '../shared/list-response.ts';
import { regionScope, scopePath, zoneScope } from '../shared/locations.ts';
import { type LocationRoute, routeContext, type RouteContext } from '../shared/route-context.ts';
import { managerPath, renderManager, renderMember } from './manager.ts';
import type { ManagerRef, ManagerService, MemberMethod } from './manager-service.ts';

/** ZONAL_AND_REGIONAL_ROUTES are the homes of instanceGroupManagers and regionInstanceGroupManagers. */
const ZONAL_AND_REGIONAL_ROUTES: readonly LocationRoute[] = [
  { path: 'zones/:zone', scopeOf: (p) => zoneScope(p['zone']!) },
  { path: 'regions/:region', scopeOf: (p) => regionScope(p['region']!) },
];

const MEMBER_METHODS: readonly MemberMethod[] = ['deleteInstances', 'recreateInstances', 'abandonInstances'];

/**
 * registerManagerRoutes serves instanceGroupManagers (zonal) and regionInstanceGroupManagers:
 * insert, get, list, patch, delete, resize, listManagedInstances, setInstanceTemplate,
 * applyUpdatesToInstances, deleteInstances, recreateInstances, abandonInstances, and aggregatedList. Both use the
 * `compute.instanceGroupManagers.*` permissions, as the real service does.
 */
export function registerManagerRoutes(app: FastifyInstance, managers: ManagerService): void {
  for (const route of ZONAL_AND_REGIONAL_ROUTES) {
    const base = `/projects/:project/${route.path}/instanceGroupManagers`;
    const refOf = (ctx: RouteContext): ManagerRef => ({
      project: ctx.params['project']!,
      scope: route.scopeOf(ctx.params),
      name: ctx.params['instanceGroupManager']!,
    });
    const access = (ctx: RouteContext, ref: ManagerRef, verb: string, write: boolean) =>
      ctx.authorize({ write, permission: `compute.instanceGroupManagers.${verb}`, resource: managerPath(ref.project, ref.scope, ref.name) });

    app.post(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      const name = typeof (ctx.body as { name?: unknown } | undefined)?.name === 'string' ? (ctx.body as { name: string }).name : '';
      const principal = access(ctx, { project, scope, name }, 'create', true);
      return renderOperation(await managers.insert(project, scope, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: 'compute.instanceGroupManagers.list', resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: 'compute#instanceGroupManagerList', path: `projects/${project}/${scopePath(scope)}/instanceGroupManagers` },
        managers.source(project, scope),
        (group) => renderManager(group, ctx.links),
      );
    });
    app.get(`${base}/:instanceGroupManager`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      access(ctx, ref, 'get', false);
      return renderManager(await managers.get(ref), ctx.links);
    });
    app.patch(`${base}/:instanceGroupManager`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'update', true);
      return renderOperation(await managers.patch(ref, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.delete(`${base}/:instanceGroupManager`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'delete', true);
      return renderOperation(await managers.delete(ref, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.post(`${base}/:instanceGroupManager/resize`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'update', true);
      const size = ctx.query['size'];
      if (typeof size !== 'string' || !/^-?\d+$/.test(size)) throw invalidFieldValue('size', String(size ?? ''), 'Target size must be non-negative.');
      return renderOperation(await managers.resize(ref, Number(size), principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.post(`${base}/:instanceGroupManager/listManagedInstances`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      access(ctx, ref, 'get', false);
      const members = await managers.managedInstances(ref);
      return { managedInstances: members.map(({ member, status }) => renderMember(member, status, ctx.links)) };
    });
    app.post(`${base}/:instanceGroupManager/setInstanceTemplate`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'update', true);
      return renderOperation(await managers.setInstanceTemplate(ref, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.post(`${base}/:instanceGroupManager/applyUpdatesToInstances`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'update', true);
      return renderOperation(await managers.applyUpdates(ref, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
    for (const method of MEMBER_METHODS) {
      app.post(`${base}/:instanceGroupManager/${method}`, async (request) => {
        const ctx = routeContext(request);
        const ref = refOf(ctx);
        const principal = access(ctx, ref, 'update', true);
        return renderOperation(await managers.members(ref, method, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
      });
    }
  }
  registerAggregatedList(app, {
    collection: 'instanceGroupManagers',
    kind: 'compute#instanceGroupManagerAggregatedList',
    permission: 'compute.instanceGroupManagers.list',
    source: (project) => managers.source(project),
    render: (group, links) => renderManager(group, links),
  });
}
