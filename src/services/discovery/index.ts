import type { DiscoveryApi } from '../../core/discovery.ts';
import { googleEnvelopeProblem } from '../../core/google-error-envelope.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { renderDiscoveryError } from './errors.ts';
import { DIRECTORY_PREFIX, HOST_DISCOVERY_PREFIX } from './prefixes.ts';

/**
 * discoveryService is the Discovery service over the families given (registry.ts passes every
 * API family): it owns `/discovery/v1/…` and `/$discovery/…`, and asks each family that serves a
 * Google API for its description (ServiceDefinition.discovery), so no family imports another and
 * the documents are rendered from what the families declare beside their routes.
 */
export function discoveryService(families: readonly ServiceDefinition[]): ServiceDefinition {
  const apis = loadOnFirstUse(async (): Promise<readonly DiscoveryApi[]> => (await Promise.all(families.map((family) => family.discovery?.() ?? []))).flat());
  return {
    name: 'discovery',
    // All of /discovery is the service's: another version of it gets its 404, not another family's.
    pathPrefixes: ['/discovery', HOST_DISCOVERY_PREFIX],
    renderError: renderDiscoveryError,
    errorBodyProblem: (status: number, body: unknown) => googleEnvelopeProblem(status, body, true),
    banner: (site) => ({
      apis: [{ name: 'discovery', baseUrl: `${site.url}${DIRECTORY_PREFIX}/apis` }],
      clients: [
        {
          name: 'google-api-python-client',
          setup: [`build('gmail', 'v1', discoveryServiceUrl='${site.url}${DIRECTORY_PREFIX}/apis/{api}/{apiVersion}/rest', credentials=Credentials(TOKEN))`],
        },
      ],
    }),
    async register(app) {
      (await import('./register.ts')).registerDiscovery(app, apis);
    },
  };
}
