import type { FastifyInstance } from 'fastify';
import { parseRequestId, renderOperation } from '../operations/index.ts';
import { boolParam } from '../shared/query-params.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { listResponse } from '../shared/list-response.ts';
import { scopePath } from '../shared/locations.ts';
import { GLOBAL_AND_REGIONAL_ROUTES, routeContext, type RouteContext } from '../shared/route-context.ts';
import { findRule, parsePriority } from './rule-priority.ts';
import type { PolicyChange, PolicyRef, SecurityPolicyService } from './policy-service.ts';
import { permissionPrefix, policyPath, renderPolicy, renderRule } from './policy.ts';
import { preconfiguredExpressionSets } from './preconfigured-sets.ts';

/** RULE_METHODS are the POST methods on one policy that change it, with the change each makes from the request. */
const RULE_METHODS: readonly { method: string; change: (ctx: RouteContext) => PolicyChange }[] = [
  { method: 'addRule', change: (ctx) => ({ method: 'addRule', body: ctx.body }) },
  { method: 'patchRule', change: (ctx) => ({ method: 'patchRule', priority: parsePriority(ctx.query), body: ctx.body, updateMask: maskOf(ctx) }) },
  { method: 'removeRule', change: (ctx) => ({ method: 'removeRule', priority: parsePriority(ctx.query) }) },
  { method: 'setLabels', change: (ctx) => ({ method: 'setLabels', body: ctx.body }) },
];

/**
 * registerSecurityPolicyRoutes serves securityPolicies and regionSecurityPolicies (insert, get,
 * list, patch, delete, addRule, getRule, patchRule, removeRule, setLabels), aggregatedList and
 * listPreconfiguredExpressionSets. Permissions follow the real IAM names: rule methods need
 * `update` on the policy (getRule needs `get`), global and regional policies have their own.
 */
export function registerSecurityPolicyRoutes(app: FastifyInstance, policies: SecurityPolicyService): void {
  app.get('/projects/:project/global/securityPolicies/listPreconfiguredExpressionSets', async (request) => {
    const ctx = routeContext(request);
    ctx.authorize({ write: false, permission: 'compute.securityPolicies.list', resource: `projects/${ctx.params['project']!}` });
    return preconfiguredExpressionSets();
  });
  for (const route of GLOBAL_AND_REGIONAL_ROUTES) {
    const base = `/projects/:project/${route.path}/securityPolicies`;
    const refOf = (ctx: RouteContext): PolicyRef => ({ project: ctx.params['project']!, scope: route.scopeOf(ctx.params), name: ctx.params['policy']! });
    const access = (ctx: RouteContext, ref: PolicyRef, verb: string, write: boolean) =>
      ctx.authorize({ write, permission: `${permissionPrefix(ref.scope)}.${verb}`, resource: policyPath(ref.project, ref.scope, ref.name) });

    app.post(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      const name = typeof (ctx.body as { name?: unknown } | undefined)?.name === 'string' ? (ctx.body as { name: string }).name : '';
      const principal = access(ctx, { project, scope, name }, 'create', true);
      const options = { requestId: parseRequestId(ctx.query), validateOnly: boolParam(ctx.query, 'validateOnly') };
      return renderOperation(await policies.insert(project, scope, ctx.body, principal, options), ctx.links);
    });
    app.get(base, async (request) => {
      const ctx = routeContext(request);
      const project = ctx.params['project']!;
      const scope = route.scopeOf(ctx.params);
      ctx.authorize({ write: false, permission: `${permissionPrefix(scope)}.list`, resource: `projects/${project}` });
      return listResponse(
        ctx,
        { kind: 'compute#securityPolicyList', path: `projects/${project}/${scopePath(scope)}/securityPolicies`, selfLink: false },
        policies.source(project, scope),
        (policy) => renderPolicy(policy, ctx.links),
      );
    });
    app.get(`${base}/:policy`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      access(ctx, ref, 'get', false);
      return renderPolicy(await policies.get(ref), ctx.links);
    });
    app.patch(`${base}/:policy`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'update', true);
      const change: PolicyChange = { method: 'patch', body: ctx.body, updateMask: maskOf(ctx) };
      return renderOperation(await policies.change(ref, change, principal, { requestId: parseRequestId(ctx.query) }), ctx.links);
    });
    app.delete(`${base}/:policy`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      const principal = access(ctx, ref, 'delete', true);
      return renderOperation(await policies.delete(ref, principal, { requestId: parseRequestId(ctx.query) }), ctx.links);
    });
    app.get(`${base}/:policy/getRule`, async (request) => {
      const ctx = routeContext(request);
      const ref = refOf(ctx);
      access(ctx, ref, 'get', false);
      return renderRule(findRule(await policies.get(ref), parsePriority(ctx.query)));
    });
    for (const { method, change } of RULE_METHODS) {
      app.post(`${base}/:policy/${method}`, async (request) => {
        const ctx = routeContext(request);
        const ref = refOf(ctx);
        const principal = access(ctx, ref, method === 'setLabels' ? 'setLabels' : 'update', true);
        const options = {
          // Only the methods that document these parameters honour them.
          requestId: method === 'setLabels' ? parseRequestId(ctx.query) : undefined,
          validateOnly: (method === 'addRule' || method === 'patchRule') && boolParam(ctx.query, 'validateOnly'),
        };
        return renderOperation(await policies.change(ref, change(ctx), principal, options), ctx.links);
      });
    }
  }
  registerAggregatedList(app, {
    collection: 'securityPolicies',
    kind: 'compute#securityPoliciesAggregatedList',
    permission: 'compute.securityPolicies.list',
    source: (project) => policies.source(project),
    render: (policy, links) => renderPolicy(policy, links),
  });
}

function maskOf(ctx: RouteContext): string | undefined {
  const mask = ctx.query['updateMask'];
  if (mask === undefined) return undefined;
  return Array.isArray(mask) ? mask.map(String).join(',') : String(mask);
}
