import type { FastifyInstance } from 'fastify';
import { parseRequestId, renderOperation } from '../operations/index.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { listResponse } from '../shared/list-response.ts';
import { scopePath, zoneScope } from '../shared/locations.ts';
import { routeContext, type RouteContext } from '../shared/route-context.ts';
import { instancePath, renderInstance } from './instance.ts';
import type { InstanceRef, InstanceService, LifecycleMethod, SetMethod } from './instance-service.ts';

const LIFECYCLE_METHODS: readonly LifecycleMethod[] = ['start', 'stop', 'suspend', 'resume', 'reset'];
const SET_METHODS: readonly SetMethod[] = ['setLabels', 'setMetadata', 'setTags'];

/**
 * registerInstanceRoutes serves zonal instances: insert (with `sourceInstanceTemplate`), get,
 * list, delete, start, stop, suspend, resume, reset, setLabels, setMetadata, setTags, and
 * aggregatedList; each method checks its own `compute.instances.*` permission.
 */
export function registerInstanceRoutes(app: FastifyInstance, instances: InstanceService): void {
  const base = '/projects/:project/zones/:zone/instances';
  const refOf = (ctx: RouteContext): InstanceRef => ({ project: ctx.params['project']!, scope: zoneScope(ctx.params['zone']!), name: ctx.params['instance']! });
  const access = (ctx: RouteContext, ref: InstanceRef, verb: string, write: boolean) =>
    ctx.authorize({ write, permission: `compute.instances.${verb}`, resource: instancePath(ref.project, ref.scope, ref.name) });

  app.post(base, async (request) => {
    const ctx = routeContext(request);
    const project = ctx.params['project']!;
    const scope = zoneScope(ctx.params['zone']!);
    const name = typeof (ctx.body as { name?: unknown } | undefined)?.name === 'string' ? (ctx.body as { name: string }).name : '';
    const principal = access(ctx, { project, scope, name }, 'create', true);
    const template = ctx.query['sourceInstanceTemplate'];
    const source = typeof template === 'string' && template !== '' ? template : undefined;
    return renderOperation(await instances.insert(project, ctx.params['zone']!, ctx.body, source, principal, parseRequestId(ctx.query)), ctx.links);
  });
  app.get(base, async (request) => {
    const ctx = routeContext(request);
    const project = ctx.params['project']!;
    const scope = zoneScope(ctx.params['zone']!);
    ctx.authorize({ write: false, permission: 'compute.instances.list', resource: `projects/${project}` });
    return listResponse(
      ctx,
      { kind: 'compute#instanceList', path: `projects/${project}/${scopePath(scope)}/instances` },
      instances.source(project, scope),
      (instance) => renderInstance(instance, ctx.links),
    );
  });
  app.get(`${base}/:instance`, async (request) => {
    const ctx = routeContext(request);
    const ref = refOf(ctx);
    access(ctx, ref, 'get', false);
    return renderInstance(await instances.get(ref), ctx.links);
  });
  app.delete(`${base}/:instance`, async (request) => {
    const ctx = routeContext(request);
    const ref = refOf(ctx);
    const principal = access(ctx, ref, 'delete', true);
    return renderOperation(await instances.delete(ref, principal, parseRequestId(ctx.query)), ctx.links);
  });
  for (const method of LIFECYCLE_METHODS) {
    app.post(`${base}/:instance/${method}`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, method, true);
      return renderOperation(await instances.lifecycle(ref, method, principal, parseRequestId(ctx.query)), ctx.links);
    });
  }
  for (const method of SET_METHODS) {
    app.post(`${base}/:instance/${method}`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, method, true);
      return renderOperation(await instances.set(ref, method, ctx.body, principal, parseRequestId(ctx.query)), ctx.links);
    });
  }
  registerAggregatedList(app, {
    collection: 'instances',
    kind: 'compute#instanceAggregatedList',
    permission: 'compute.instances.list',
    source: (project) => instances.source(project),
    render: (instance, links) => renderInstance(instance, links),
  });
}
