import type { StoredManager } from '../instance-group-managers/index.ts';
import { link, type Links } from '../shared/links.ts';
import { type Scope, scopePath } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';

/** EMPTY_FINGERPRINT is the fingerprint the service shows on an instance group with no named ports set. */
const EMPTY_FINGERPRINT = '42WmSpB8rSM=';

/** ManagedInstanceGroup is the instance group a managed instance group manages: the group, and where its instances are networked. */
export interface ManagedInstanceGroup {
  readonly manager: StoredManager;
  readonly scope: Scope;
  /** Paths: `projects/p/global/networks/N`, `projects/p/regions/R/subnetworks/S`. */
  readonly network: string;
  readonly subnetwork: string;
}

/** instanceGroupPath is the path of a group's instance group (the manager's name in the manager's zone or region). */
export function instanceGroupPath(manager: StoredManager): string {
  return `projects/${manager.project}/${scopePath(manager.scope)}/instanceGroups/${manager.name}`;
}

/** renderInstanceGroup is the wire form of a managed group's instance group, as the real service shows it. */
export function renderInstanceGroup(group: ManagedInstanceGroup, links: Links): Record<string, unknown> {
  const { manager } = group;
  const location = manager.scope.kind === 'region' ? 'region' : 'zone';
  return {
    kind: 'compute#instanceGroup',
    id: manager.instanceGroupId ?? manager.id,
    creationTimestamp: rfc3339(manager.creationTime),
    name: manager.name,
    description: `This instance group is controlled by Instance Group Manager '${manager.name}'. To modify instances in this group, use the Instance Group Manager API: https://cloud.google.com/compute/docs/reference/latest/instanceGroupManagers`,
    network: link(links, group.network),
    fingerprint: EMPTY_FINGERPRINT,
    [location]: link(links, `projects/${manager.project}/${scopePath(manager.scope)}`),
    selfLink: link(links, instanceGroupPath(manager)),
    size: manager.members.length,
    subnetwork: link(links, group.subnetwork),
  };
}
