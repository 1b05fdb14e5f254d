import type { FastifyInstance } from 'fastify';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { registerAutoscalerRoutes } from './autoscalers/routes.ts';
import { BackendServiceService, registerBackendServiceRoutes } from './backend-services/index.ts';
import { registerCatalogRoutes } from './catalog/index.ts';
import { COMPUTE_PREFIX } from './prefixes.ts';
import { InstanceGroupService, registerInstanceGroupRoutes } from './instance-groups/index.ts';
import { INSTANT_TIMING, ManagerService, REALISTIC_TIMING, registerManagerRoutes } from './instance-group-managers/index.ts';
import { InstanceService, registerInstanceRoutes } from './instances/index.ts';
import { registerInstanceTemplateRoutes, TemplateService } from './instance-templates/index.ts';
import { MEMORY_MAX_RETAINED_OPERATIONS, OperationService, registerOperationRoutes } from './operations/index.ts';
import { useInjectedOperationErrors } from './operations/injected-failure.ts';
import { registerSecurityPolicyRoutes, SecurityPolicyService } from './security-policies/index.ts';
import { useComputeAuth } from './shared/authorize.ts';
import { useComputeBatch } from './shared/batch.ts';
import { Usages } from './shared/in-use.ts';

/**
 * registerCompute builds the compute family's app (computeService.register, loaded with the
 * family's first request): Operations, instance templates, security policies, the catalog and the
 * batch endpoint, and resumes the Operations a previous run left unfinished.
 */
export async function registerCompute(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle> {
  const operations = new OperationService({
    store: context.store,
    clock: context.clock,
    timers: context.timers,
    ids: context.ids,
    mode: context.operations,
    singleton: context.singleton,
    // In memory every kept Operation is heap: bound them by count as well as by age.
    ...(context.store.backend === 'memory' ? { maxRetained: MEMORY_MAX_RETAINED_OPERATIONS } : {}),
  });
  const usages = new Usages();
  const templates = new TemplateService(context.store, operations, context.clock, context.ids, usages);
  const securityPolicies = new SecurityPolicyService(context.store, operations, context.clock, context.ids, usages);
  const backendServices = new BackendServiceService(context.store, operations, context.clock, context.ids, usages);
  const instances = new InstanceService(context.store, operations, context.clock, context.ids, templates);
  const groups = new ManagerService(
    context.store,
    operations,
    context.clock,
    context.timers,
    context.ids,
    instances,
    usages,
    context.operations === 'instant' ? INSTANT_TIMING : REALISTIC_TIMING,
  );
  const instanceGroups = new InstanceGroupService(context.store, groups);
  useInjectedOperationErrors(app);
  useComputeAuth(app, context.auth);
  await app.register(
    async (scope) => {
      registerOperationRoutes(scope, operations);
      registerCatalogRoutes(scope);
      registerInstanceTemplateRoutes(scope, templates);
      registerSecurityPolicyRoutes(scope, securityPolicies);
      registerBackendServiceRoutes(scope, backendServices);
      registerInstanceRoutes(scope, instances);
      registerManagerRoutes(scope, groups);
      registerInstanceGroupRoutes(scope, instanceGroups);
      registerAutoscalerRoutes(scope);
    },
    { prefix: COMPUTE_PREFIX },
  );
  useComputeBatch(app, context.ids);
  await operations.open();
  await groups.open();
  return {
    close: async () => {
      await groups.close();
      await operations.close();
    },
    // What the first list with a filter, template insert and policy insert load and compile;
    // nothing is written.
    warmUp: async () => {
      (await import('./shared/list-filter.ts')).compileFilter('name = x');
      await import('./instance-templates/decode-template.ts');
      const { parseExpression, typeCheck } = await import('./security-policies/check-expression.ts');
      const text = "request.path.startsWith('/') && inIpRange(origin.ip, '10.0.0.0/8')";
      typeCheck(parseExpression(text), text);
    },
  };
}
