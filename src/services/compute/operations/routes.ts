import type { FastifyInstance } from 'fastify';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { listResponse } from '../shared/list-response.ts';
import { GLOBAL, regionScope, scopePath, zoneScope, type Scope } from '../shared/locations.ts';
import { routeContext, type Params } from '../shared/route-context.ts';
import { renderOperation, operationPath } from './operation.ts';
import type { OperationService } from './operation-service.ts';

interface ScopeRoute {
  /** URL segment before `/operations`. */
  readonly path: string;
  /** IAM collection: globalOperations, regionOperations, zoneOperations. */
  readonly collection: string;
  readonly scopeOf: (params: Params) => Scope;
}

const SCOPES: readonly ScopeRoute[] = [
  { path: 'global', collection: 'globalOperations', scopeOf: () => GLOBAL },
  { path: 'regions/:region', collection: 'regionOperations', scopeOf: (p) => regionScope(p['region']!) },
  { path: 'zones/:zone', collection: 'zoneOperations', scopeOf: (p) => zoneScope(p['zone']!) },
];

/** registerOperationRoutes serves get, wait, list and delete for global, regional and zonal Operations, and aggregatedList. */
export function registerOperationRoutes(app: FastifyInstance, operations: OperationService): void {
  for (const route of SCOPES) {
    const base = `/projects/:project/${route.path}/operations`;
    app.get(`${base}/:operation`, async (request) => {
      const ctx = routeContext(request);
      const { project, operation } = ctx.params as { project: string; operation: string };
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: `compute.${route.collection}.get`, resource: operationPath({ project, scope, name: operation }) });
      return renderOperation(await operations.get(project, scope, operation), ctx.links);
    });
    app.post(`${base}/:operation/wait`, async (request) => {
      const ctx = routeContext(request);
      const { project, operation } = ctx.params as { project: string; operation: string };
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: `compute.${route.collection}.get`, resource: operationPath({ project, scope, name: operation }) });
      return renderOperation(await operations.wait(project, scope, operation), ctx.links);
    });
    app.delete(`${base}/:operation`, async (request, reply) => {
      const ctx = routeContext(request);
      const { project, operation } = ctx.params as { project: string; operation: string };
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: true, permission: `compute.${route.collection}.delete`, resource: operationPath({ project, scope, name: operation }) });
      await operations.remove(project, scope, operation);
      // The real method answers an empty message.
      return reply.code(200).send({});
    });
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: `compute.${route.collection}.list`, resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: 'compute#operationList', path: `projects/${project}/${scopePath(scope)}/operations` },
        operations.source(project, scope),
        (op) => renderOperation(op, ctx.links),
      );
    });
  }
  registerAggregatedList(app, {
    collection: 'operations',
    kind: 'compute#operationAggregatedList',
    permission: 'compute.globalOperations.list',
    source: (project) => operations.source(project),
    render: (operation, links) => renderOperation(operation, links),
  });
}
