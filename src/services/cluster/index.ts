/**
 * The cluster API family's definition (spec area C): a Kubernetes 1.32-compatible API server
 * with RBAC, Namespaces, Events, ServiceAccounts and their tokens, the built-in kinds of a default
 * apiserver (`builtin/`), CustomResourceDefinitions (`crd/`), discovery, OpenAPI v2 and v3,
 * `/version`, health and OIDC discovery. This file holds only what core needs before the ready
 * line (prefixes, error dialect, banner, client files); the routes and the working parts load
 * with the first request, through `register.ts`. Kinds with a strategy of their own are a view +
 * strategy under `resources/`; the behaviour is the generic registry's under `apimachinery/`.
 */
import type { Vocabulary } from '../../core/identifiers.ts';
import { apiGroupVocabulary, DEFAULT_API_DOMAIN } from './identifiers.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { clusterErrorBodyProblem, renderClusterError } from './apimachinery/error-serializer.ts';
import { negotiatedJson, wantsPretty } from './apimachinery/send-serialized.ts';
import { clusterBanner } from './banner.ts';
import { BUILTIN_GROUP_PREFIXES } from './builtin/kinds.ts';
import { ServedCustomResourceNames } from './crd/served-names.ts';
import { KUBECONFIG_FILE_NAME, kubeconfigText } from './kubeconfig.ts';
import { type ClusterOptions, EVENT_TTL_OPTION, JOB_DURATION_OPTION, NODES_OPTION, POD_READY_DELAY_OPTION, WORKLOADS_OPTION } from './options.ts';
import { requestVerb } from './request-info.ts';

export type { ClusterOptions } from './options.ts';

/** CLUSTER_GROUP_PREFIXES are the named groups served, without their domain. */
export const CLUSTER_GROUP_PREFIXES: readonly string[] = [
  'rbac.authorization',
  'events',
  'authorization',
  'authentication',
  'apiextensions',
  ...BUILTIN_GROUP_PREFIXES,
];

/** CLUSTER_PATH_PREFIXES are the URL prefixes the family answers under. */
export const CLUSTER_PATH_PREFIXES: readonly string[] = ['/api', '/apis', '/version', '/openapi', '/livez', '/readyz', '/openid', '/.well-known'];

/** createClusterService builds the family with its options. */
export function createClusterService(options: ClusterOptions = {}): ServiceDefinition {
  const domain = options.apiDomain ?? DEFAULT_API_DOMAIN;
  const groups: Vocabulary = apiGroupVocabulary(CLUSTER_GROUP_PREFIXES, domain);
  const spelling = domain === DEFAULT_API_DOMAIN ? 'real' : 'spec';
  // Kept by the runtime's CRD catalog, read by fault rules (which exist before the runtime loads).
  const customResources = new ServedCustomResourceNames();
  return {
    name: 'cluster',
    pathPrefixes: CLUSTER_PATH_PREFIXES,
    renderError: renderClusterError,
    encodeError: (body, request) => negotiatedJson(JSON.stringify(body), wantsPretty(request)),
    errorBodyProblem: clusterErrorBodyProblem,
    banner: clusterBanner,
    options: [EVENT_TTL_OPTION, WORKLOADS_OPTION, NODES_OPTION, POD_READY_DELAY_OPTION, JOB_DURATION_OPTION],
    requestMethodId: requestVerb(groups),
    clientFiles: (site) => [
      {
        name: KUBECONFIG_FILE_NAME,
        text: kubeconfigText(
          site.url,
          site.adminToken,
          'fogbank',
          site.httpsUrl === undefined || site.tls === undefined ? undefined : { httpsUrl: site.httpsUrl, ...site.tls },
        ),
      },
    ],
    faultEffects: ['watch'],
    faultMethods: async () => (await import('./fault-methods.ts')).clusterFaultMethods(groups, customResources),
    async register(app, context) {
      return (await import('./register.ts')).registerCluster(app, context, { options, groups, domain, spelling, customResources });
    },
  };
}

/** clusterService is the family with default options. */
export const clusterService: ServiceDefinition = createClusterService();
