import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';

/** MANAGERS_KIND is the store kind; keys are `project/scopePath/name` (zonal and regional groups). */
export const MANAGERS_KIND = 'compute.instanceGroupManagers';

/** ManagedAction is a managed instance's `currentAction`. */
export type ManagedAction = 'CREATING' | 'DELETING' | 'RECREATING' | 'NONE';

/** ManagedMember is one instance of a group: its path, the template it was made from, what the group is doing to it. */
export interface ManagedMember {
  readonly id: string;
  /** `projects/p/zones/Z/instances/NAME` */
  readonly instance: string;
  readonly template: string;
  readonly action: ManagedAction;
}

/** ManagerVersion is one of `versions[]`: a template and, for a canary, its share. */
export interface ManagerVersion {
  readonly instanceTemplate: string;
  readonly name?: string;
  readonly targetSize?: Readonly<Record<string, unknown>>;
}

/** StoredManager is a managed instance group as kept; templates as paths. */
export interface StoredManager {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly creationTime: number;
  readonly description: string;
  readonly baseInstanceName: string;
  readonly targetSize: number;
  /** The template new instances get: `versions[0]`'s, or `instanceTemplate`. */
  readonly instanceTemplate: string;
  readonly versions: readonly ManagerVersion[];
  readonly updatePolicy: Readonly<Record<string, unknown>>;
  readonly fingerprint: string;
  readonly members: readonly ManagedMember[];
}

/** managerKey is the store key of a group. */
export function managerKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** managerPath is the resource path of a group. */
export function managerPath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/instanceGroupManagers/${name}`;
}

/** DEFAULT_UPDATE_POLICY is what the service fills: an opportunistic update, replacing by substitution, one surge and none unavailable per zone. */
export const DEFAULT_UPDATE_POLICY: Readonly<Record<string, unknown>> = {
  type: 'OPPORTUNISTIC',
  minimalAction: 'REPLACE',
  replacementMethod: 'SUBSTITUTE',
  maxSurge: { fixed: 1, calculated: 1 },
  maxUnavailable: { fixed: 1, calculated: 1 },
};

/** renderManager is the wire form, links on the caller's address. */
export function renderManager(manager: StoredManager, links: Links): Record<string, unknown> {
  const count = (action: ManagedAction) => manager.members.filter((member) => member.action === action).length;
  const stable = manager.members.every((member) => member.action === 'NONE') && manager.members.length === manager.targetSize;
  const upToDate = manager.members.every((member) => member.template === manager.instanceTemplate);
  const location = manager.scope.kind === 'region' ? 'region' : 'zone';
  return {
    kind: 'compute#instanceGroupManager',
    id: manager.id,
    creationTimestamp: rfc3339(manager.creationTime),
    name: manager.name,
    description: manager.description,
    [location]: link(links, `projects/${manager.project}/${scopePath(manager.scope)}`),
    instanceTemplate: link(links, manager.instanceTemplate),
    versions: manager.versions.map((version) => ({ ...version, instanceTemplate: link(links, version.instanceTemplate) })),
    instanceGroup: link(links, `projects/${manager.project}/${scopePath(manager.scope)}/instanceGroups/${manager.name}`),
    baseInstanceName: manager.baseInstanceName,
    fingerprint: manager.fingerprint,
    currentActions: {
      none: count('NONE'),
      creating: count('CREATING'),
      creatingWithoutRetries: 0,
      verifying: 0,
      recreating: count('RECREATING'),
      deleting: count('DELETING'),
      abandoning: 0,
      restarting: 0,
      refreshing: 0,
      suspending: 0,
      resuming: 0,
      stopping: 0,
      starting: 0,
    },
    status: { isStable: stable, versionTarget: { isReached: upToDate }, stateful: { hasStatefulConfig: false, perInstanceConfigs: { allEffective: true } } },
    targetSize: manager.targetSize,
    updatePolicy: manager.updatePolicy,
    listManagedInstancesResults: 'PAGELESS',
    selfLink: link(links, managerPath(manager.project, manager.scope, manager.name)),
  };
}

/** renderMember is one `managedInstances[]` entry of listManagedInstances. */
export function renderMember(member: ManagedMember, status: string | undefined, links: Links): Record<string, unknown> {
  return {
    instance: link(links, member.instance),
    id: member.id,
    name: member.instance.slice(member.instance.lastIndexOf('/') + 1),
    currentAction: member.action,
    ...(status === undefined ? {} : { instanceStatus: status }),
    version: { instanceTemplate: link(links, member.template) },
  };
}
