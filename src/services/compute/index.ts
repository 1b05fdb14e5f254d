import type { FastifyInstance } from 'fastify';
import { isUnderPrefix } from '../../core/path-aliases.ts';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import type { ServiceContext, ServiceDefinition } from '../../core/service.ts';
import { computeBanner } from './banner.ts';
import { registerCatalogRoutes } from './catalog/index.ts';
import { registerInstanceTemplateRoutes, TemplateService } from './instance-templates/index.ts';
import { MEMORY_MAX_RETAINED_OPERATIONS, OperationService, registerOperationRoutes } from './operations/index.ts';
import { registerSecurityPolicyRoutes, SecurityPolicyService } from './security-policies/index.ts';
import { authenticateCompute, useComputeAuth } from './shared/authorize.ts';
import { useComputeBatch } from './shared/batch.ts';
import { computeErrorBodyProblem, renderComputeError, useComputeErrors } from './shared/error-serializer.ts';

/** COMPUTE_PREFIX is where the compute API lives; requests without it are served too (an override with no path). */
export const COMPUTE_PREFIX = '/compute/v1';

/** UNPREFIXED is the compute API without its prefix: every resource path starts `projects/`. */
const UNPREFIXED = { alias: '/projects', canonical: `${COMPUTE_PREFIX}/projects` };

/** computeService is the compute API family: Operations, instance templates, security policies and the read-only catalog. */
export const computeService: ServiceDefinition = {
  name: 'compute',
  pathPrefixes: [COMPUTE_PREFIX, '/batch/compute/v1'],
  pathAliases: [UNPREFIXED],
  fallback: true,
  renderError: renderComputeError,
  errorBodyProblem: computeErrorBodyProblem,
  banner: computeBanner,
  // An unknown path under the prefix is authenticated like a known one; compute also answers
  // paths under no family's prefix (fallback), and those are not its to guard.
  screenUnknownPath(request, context) {
    if (isUnderPrefix(request.url, COMPUTE_PREFIX)) authenticateCompute(request, context.auth);
  },
  async register(app: FastifyInstance, context: ServiceContext) {
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
    const templates = new TemplateService(context.store, operations, context.clock, context.ids);
    const securityPolicies = new SecurityPolicyService(context.store, operations, context.clock, context.ids);
    const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
    useComputeErrors(app, bodyLimit);
    useComputeAuth(app, context.auth);
    await app.register(
      async (scope) => {
        registerOperationRoutes(scope, operations);
        registerCatalogRoutes(scope);
        registerInstanceTemplateRoutes(scope, templates);
        registerSecurityPolicyRoutes(scope, securityPolicies);
      },
      { prefix: COMPUTE_PREFIX },
    );
    useComputeBatch(app, context.ids);
    await operations.open();
    return operations;
  },
};
