import { isUnderPrefix } from '../../core/path-aliases.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { computeBanner } from './banner.ts';
import { authenticateCompute } from './shared/authorize.ts';
import { computeErrorBodyProblem, renderComputeError } from './shared/error-serializer.ts';

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
  discovery: async () => [(await import('./discovery.ts')).COMPUTE_DISCOVERY],
  async register(app, context) {
    return (await import('./register.ts')).registerCompute(app, context);
  },
};
