import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';
import type { LoadBalancingScheme } from './schema.ts';

/** BACKEND_SERVICES_KIND is the store kind; keys are `project/scopePath/name`. */
export const BACKEND_SERVICES_KIND = 'compute.backendServices';

/** StoredBackendService is a backend service as kept: the policy references as paths (rendered as URLs). */
export interface StoredBackendService {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly creationTime: number;
  readonly fingerprint: string;
  readonly loadBalancingScheme: LoadBalancingScheme;
  /** The backend security policy's path (`projects/p/global/securityPolicies/pol`), when one is attached. */
  readonly securityPolicy?: string;
  /** The edge security policy's path, when one is attached (global backend services only). */
  readonly edgeSecurityPolicy?: string;
  /** Every other field as the service fills and returns it (protocol, port, timeoutSec, backends, …; references as paths). */
  readonly settings: Readonly<Record<string, unknown>>;
}

/** backendServiceKey is the store key of a backend service. */
export function backendServiceKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** backendServicePath is the resource path of a backend service, the targetLink of its Operations. */
export function backendServicePath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/backendServices/${name}`;
}

/** permissionPrefix is the IAM collection: regional backend services have permissions of their own. */
export function backendPermissionPrefix(scope: Scope): string {
  return scope.kind === 'global' ? 'compute.backendServices' : 'compute.regionBackendServices';
}

/** REFERENCE_LISTS are the settings holding lists of resource paths, rendered as URLs. */
const REFERENCE_LISTS = ['healthChecks'] as const;

/** renderBackendService is the wire form, every reference a URL on the caller's address. */
export function renderBackendService(service: StoredBackendService, links: Links): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...service.settings };
  for (const field of REFERENCE_LISTS) {
    const list = settings[field];
    if (Array.isArray(list)) settings[field] = list.map((path) => link(links, String(path)));
  }
  if (Array.isArray(settings['backends'])) {
    settings['backends'] = (settings['backends'] as Record<string, unknown>[]).map((backend) =>
      typeof backend['group'] === 'string' ? { ...backend, group: link(links, backend['group']) } : backend,
    );
  }
  if (typeof settings['network'] === 'string') settings['network'] = link(links, settings['network']);
  return {
    kind: 'compute#backendService',
    id: service.id,
    creationTimestamp: rfc3339(service.creationTime),
    name: service.name,
    ...settings,
    loadBalancingScheme: service.loadBalancingScheme,
    fingerprint: service.fingerprint,
    ...(service.securityPolicy === undefined ? {} : { securityPolicy: link(links, service.securityPolicy) }),
    ...(service.edgeSecurityPolicy === undefined ? {} : { edgeSecurityPolicy: link(links, service.edgeSecurityPolicy) }),
    selfLink: link(links, backendServicePath(service.project, service.scope, service.name)),
    ...(service.scope.kind === 'region' ? { region: link(links, `projects/${service.project}/regions/${service.scope.name}`) } : {}),
  };
}
