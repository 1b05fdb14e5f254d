import { link, type Links } from '../shared/links.ts';
import { REGIONS, scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';
import { calculated, displayedAction, isStable, isVersionReached, type ManagedMember } from './rollout.ts';

/** MANAGERS_KIND is the store kind; keys are `project/scopePath/name` (zonal and regional groups). */
export const MANAGERS_KIND = 'compute.instanceGroupManagers';

export type { ManagedAction, ManagedMember } from './rollout.ts';

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
  /** The id of the instance group the manager manages (absent in records written before it was kept: the manager's own id stands in). */
  readonly instanceGroupId?: string;
}

/** managerKey is the store key of a group. */
export function managerKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** managerPath is the resource path of a group. */
export function managerPath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/instanceGroupManagers/${name}`;
}

/** REGIONAL_GROUP_ZONES is how many of its region's zones a regional group spreads over when no distribution policy names them (the service picks three). */
const REGIONAL_GROUP_ZONES = 3;

/** groupZones are the zones a group's instances are in: its own, or the first three of its region's. */
export function groupZones(scope: Scope): readonly string[] {
  if (scope.kind === 'zone') return [scope.name];
  if (scope.kind !== 'region') return [];
  return (REGIONS[scope.name] ?? ['a']).slice(0, REGIONAL_GROUP_ZONES).map((letter) => `${scope.name}-${letter}`);
}

/** zoneCount is how many zones a group operates in. */
export function zoneCount(scope: Scope): number {
  return groupZones(scope).length;
}

/**
 * defaultUpdatePolicy is what the service fills: an opportunistic update, replacing by
 * substitution, maxSurge and maxUnavailable each a fixed value equal to the number of zones the
 * group operates in.
 */
export function defaultUpdatePolicy(scope: Scope): Readonly<Record<string, unknown>> {
  const zones = zoneCount(scope);
  return { type: 'OPPORTUNISTIC', minimalAction: 'REPLACE', replacementMethod: 'SUBSTITUTE', maxSurge: { fixed: zones }, maxUnavailable: { fixed: zones } };
}

type FixedOrPercent = { readonly fixed?: number; readonly percent?: number };

/** renderedPolicy is the update policy with each FixedOrPercent's `calculated` number of instances for the target size. */
export function renderedPolicy(manager: StoredManager): Record<string, unknown> {
  const policy = { ...manager.updatePolicy };
  for (const field of ['maxSurge', 'maxUnavailable']) {
    const value = policy[field] as FixedOrPercent | undefined;
    if (value === undefined) continue;
    const { calculated: _old, ...given } = value as FixedOrPercent & { calculated?: number };
    policy[field] = { ...given, calculated: calculated(given, manager.targetSize, 0) };
  }
  return policy;
}

/** renderManager is the wire form, links on the caller's address. */
export function renderManager(manager: StoredManager, links: Links): Record<string, unknown> {
  const count = (action: string) => manager.members.filter((member) => displayedAction(member) === action).length;
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
      verifying: count('VERIFYING'),
      recreating: count('RECREATING'),
      deleting: count('DELETING'),
      abandoning: 0,
      restarting: count('RESTARTING'),
      refreshing: count('REFRESHING'),
      suspending: 0,
      resuming: 0,
      stopping: 0,
      starting: 0,
    },
    status: {
      isStable: isStable(manager.members, manager.targetSize),
      versionTarget: { isReached: isVersionReached(manager.members, manager.instanceTemplate) },
      stateful: { hasStatefulConfig: false, perInstanceConfigs: { allEffective: true } },
    },
    targetSize: manager.targetSize,
    updatePolicy: renderedPolicy(manager),
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
    currentAction: displayedAction(member),
    ...(status === undefined ? {} : { instanceStatus: status }),
    version: { instanceTemplate: link(links, member.template) },
  };
}
