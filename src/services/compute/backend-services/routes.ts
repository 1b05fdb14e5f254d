import type { FastifyInstance } from 'fastify';
import { parseRequestId, renderOperation } from '../operations/index.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { listResponse } from '../shared/list-response.ts';
import { scopePath } from '../shared/locations.ts';
import { GLOBAL_AND_REGIONAL_ROUTES, routeContext, type RouteContext } from '../shared/route-context.ts';
import { backendPermissionPrefix, backendServicePath, renderBackendService } from './backend-service.ts';
import type { BackendServiceChange, BackendServiceRef, BackendServiceService } from './backend-service-service.ts';

/**
 * registerBackendServiceRoutes serves backendServices and regionBackendServices: insert, get,
 * list, patch, update, delete, setSecurityPolicy (both), setEdgeSecurityPolicy (global only, as
 * in v1), and aggregatedList. Attaching a policy also needs `compute.securityPolicies.use` on it,
 * which the real service checks; fogbank's permission model checks the backend service's.
 */
export function registerBackendServiceRoutes(app: FastifyInstance, services: BackendServiceService): void {
  for (const route of GLOBAL_AND_REGIONAL_ROUTES) {
    const base = `/projects/:project/${route.path}/backendServices`;
    const refOf = (ctx: RouteContext): BackendServiceRef => ({
      project: ctx.params['project']!,
      scope: route.scopeOf(ctx.params),
      name: ctx.params['backendService']!,
    });
    const access = (ctx: RouteContext, ref: BackendServiceRef, verb: string, write: boolean) =>
      ctx.authorize({ write, permission: `${backendPermissionPrefix(ref.scope)}.${verb}`, resource: backendServicePath(ref.project, ref.scope, ref.name) });
    const change = (method: BackendServiceChange['method'], verb: string) => async (request: Parameters<typeof routeContext>[0]) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, verb, true);
      return renderOperation(await services.change(ref, { method, body: ctx.body }, principal, parseRequestId(ctx.query)), ctx.links);
    };

    app.post(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      const name = typeof (ctx.body as { name?: unknown } | undefined)?.name === 'string' ? (ctx.body as { name: string }).name : '';
      const principal = access(ctx, { project, scope, name }, 'create', true);
      return renderOperation(await services.insert(project, scope, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: `${backendPermissionPrefix(scope)}.list`, resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: 'compute#backendServiceList', path: `projects/${project}/${scopePath(scope)}/backendServices` },
        services.source(project, scope),
        (service) => renderBackendService(service, ctx.links),
      );
    });
    app.get(`${base}/:backendService`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      access(ctx, ref, 'get', false);
      return renderBackendService(await services.get(ref), ctx.links);
    });
    app.patch(`${base}/:backendService`, change('patch', 'update'));
    app.put(`${base}/:backendService`, change('update', 'update'));
    app.delete(`${base}/:backendService`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'delete', true);
      return renderOperation(await services.delete(ref, principal, parseRequestId(ctx.query)), ctx.links);
    });
    app.post(`${base}/:backendService/setSecurityPolicy`, change('setSecurityPolicy', 'setSecurityPolicy'));
    if (route.path === 'global') app.post(`${base}/:backendService/setEdgeSecurityPolicy`, change('setEdgeSecurityPolicy', 'setSecurityPolicy'));
  }
  registerAggregatedList(app, {
    collection: 'backendServices',
    kind: 'compute#backendServiceAggregatedList',
    permission: 'compute.backendServices.list',
    source: (project) => services.source(project),
    render: (service, links) => renderBackendService(service, links),
  });
}
