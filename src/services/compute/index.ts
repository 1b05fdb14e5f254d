import { isUnderPrefix, versionlessPrefix } from '../../core/path-aliases.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { computeBanner } from './banner.ts';
import { COMPUTE_PREFIX } from './prefixes.ts';
import { authenticateCompute } from './shared/authorize.ts';
import { computeErrorBodyProblem, renderComputeError } from './shared/error-serializer.ts';

/** UNPREFIXED is the compute API without its prefix: every resource path starts `projects/`. */
const UNPREFIXED = { alias: '/projects', canonical: `${COMPUTE_PREFIX}/projects` };

/** computeService is the compute API family: Operations, instance templates, security policies and the read-only catalog. */
export const computeService: ServiceDefinition = {
  name: 'compute',
  // Every version (`/compute/beta/…` is compute's to refuse); without a prefix only `/projects/…`
  // is compute's, and any other path no family owns gets core's neutral answer.
  pathPrefixes: [COMPUTE_PREFIX, '/batch/compute/v1', ...[COMPUTE_PREFIX, '/batch/compute/v1'].map(versionlessPrefix)],
  pathAliases: [UNPREFIXED],
  renderError: renderComputeError,
  faultEffects: ['operationError'],
  errorBodyProblem: computeErrorBodyProblem,
  banner: computeBanner,
  // An unknown path under the prefix is authenticated like a known one; under a version fogbank
  // does not serve there is nothing to guard.
  screenUnknownPath(request, context) {
    if (isUnderPrefix(request.url, COMPUTE_PREFIX)) authenticateCompute(request, context.auth);
  },
  discovery: async () => [(await import('./discovery.ts')).COMPUTE_DISCOVERY],
  // The admin API's what-if evaluation and fogbank guard's policy stream (core/policy-evaluation.ts).
  policyEvaluation: async () => (await import('./security-policies/policy-evaluation.ts')).securityPolicyEvaluation,
  async register(app, context) {
    return (await import('./register.ts')).registerCompute(app, context);
  },
};
