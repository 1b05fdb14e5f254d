import type { FastifyInstance } from 'fastify';
import { arraySource } from '../shared/list-query.ts';
import { listResponse } from '../shared/list-response.ts';
import { regionScope, scopePath, type Scope, zoneScope } from '../shared/locations.ts';
import { routeContext } from '../shared/route-context.ts';

const HOMES: readonly { readonly path: string; readonly scopeOf: (params: Readonly<Record<string, string>>) => Scope; readonly kind: string }[] = [
  { path: 'zones/:zone', scopeOf: (p) => zoneScope(p['zone']!), kind: 'compute#autoscalerList' },
  { path: 'regions/:region', scopeOf: (p) => regionScope(p['region']!), kind: 'compute#regionAutoscalerList' },
];

/**
 * registerAutoscalerRoutes serves autoscalers.list and regionAutoscalers.list. fogbank has no
 * autoscalers (none can be made), so every list is empty; gcloud's `instance-groups managed list`
 * and `describe` read them to tell whether a group is autoscaled, and fail without them.
 */
export function registerAutoscalerRoutes(app: FastifyInstance): void {
  for (const home of HOMES) {
    app.get(`/projects/:project/${home.path}/autoscalers`, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      ctx.authorize({ write: false, permission: 'compute.autoscalers.list', resource: `projects/${project}` });
      const path = `projects/${project}/${scopePath(home.scopeOf(ctx.params))}/autoscalers`;
      return listResponse(
        ctx,
        { kind: home.kind, path },
        arraySource<Record<string, unknown>>([], () => ''),
        (autoscaler) => autoscaler,
      );
    });
  }
}
