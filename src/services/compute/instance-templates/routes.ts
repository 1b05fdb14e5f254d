import type { FastifyInstance } from 'fastify';
import { parseRequestId, renderOperation } from '../operations/index.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { EncodedResources } from '../shared/encoded-resources.ts';
import { listResponse } from '../shared/list-response.ts';
import { scopePath } from '../shared/locations.ts';
import { GLOBAL_AND_REGIONAL_ROUTES, routeContext } from '../shared/route-context.ts';
import { renderTemplate, templatePath } from './template.ts';
import type { TemplateService } from './template-service.ts';

/** registerInstanceTemplateRoutes serves instanceTemplates (global and regional) and aggregatedList. */
export function registerInstanceTemplateRoutes(app: FastifyInstance, templates: TemplateService): void {
  // A GET by name serialises a template once per stored revision (encoded-resources.ts).
  const encoded = new EncodedResources(renderTemplate);
  for (const route of GLOBAL_AND_REGIONAL_ROUTES) {
    const base = `/projects/:project/${route.path}/instanceTemplates`;
    app.post(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      const name = typeof (ctx.body as { name?: unknown } | undefined)?.name === 'string' ? (ctx.body as { name: string }).name : '';
      const principal = ctx.authorize({ write: true, permission: 'compute.instanceTemplates.create', resource: templatePath(project, scope, name) });
      const requestId = parseRequestId(ctx.query);
      return renderOperation(await templates.insert(project, scope, ctx.body, principal, requestId), ctx.links);
    });
    app.get(`${base}/:template`, async (request, reply) => {
      const ctx = routeContext(request);
      const { project, template } = ctx.params as { project: string; template: string };
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: 'compute.instanceTemplates.get', resource: templatePath(project, scope, template) });
      return encoded.send(reply, await templates.get(project, scope, template), ctx.links);
    });
    app.delete(`${base}/:template`, async (request) => {
      const ctx = routeContext(request);
      const { project, template } = ctx.params as { project: string; template: string };
      const scope = route.scopeOf(ctx.params);
      const principal = ctx.authorize({ write: true, permission: 'compute.instanceTemplates.delete', resource: templatePath(project, scope, template) });
      const requestId = parseRequestId(ctx.query);
      return renderOperation(await templates.delete(project, scope, template, principal, requestId), ctx.links);
    });
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: 'compute.instanceTemplates.list', resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: 'compute#instanceTemplateList', path: `projects/${project}/${scopePath(scope)}/instanceTemplates` },
        templates.source(project, scope),
        (t) => renderTemplate(t, ctx.links),
      );
    });
  }
  registerAggregatedList(app, {
    collection: 'instanceTemplates',
    kind: 'compute#instanceTemplateAggregatedList',
    permission: 'compute.instanceTemplates.list',
    source: (project) => templates.source(project),
    render: (template, links) => renderTemplate(template, links),
  });
}
