import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';

/** INSTANCES_KIND is the store kind; keys are `project/zones/Z/name`. */
export const INSTANCES_KIND = 'compute.instances';

/** InstanceStatus is an instance's lifecycle state (v1 Instance.Status). */
export type InstanceStatus = 'PROVISIONING' | 'STAGING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'SUSPENDING' | 'SUSPENDED' | 'REPAIRING' | 'TERMINATED';

/** StoredInstance is a VM instance as kept: references as paths (rendered as URLs). */
export interface StoredInstance {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly creationTime: number;
  readonly status: InstanceStatus;
  /** The machine type's path, `projects/p/zones/Z/machineTypes/e2-small`. */
  readonly machineType: string;
  /** The template the instance was made from (its path), when it was. */
  readonly sourceInstanceTemplate?: string;
  readonly fingerprint: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly labelFingerprint: string;
  readonly lastStartTime?: number;
  readonly lastStopTime?: number;
  readonly lastSuspendedTime?: number;
  /** Everything else as the service fills and returns it (networkInterfaces, disks, metadata, tags, scheduling, …; references as paths). */
  readonly properties: Readonly<Record<string, unknown>>;
}

/** instanceKey is the store key of an instance. */
export function instanceKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** instancePath is the resource path of an instance, the targetLink of its Operations. */
export function instancePath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/instances/${name}`;
}

/** linkPaths turns every reference a network interface or a disk keeps as a path into a URL. */
function linkPaths(properties: Readonly<Record<string, unknown>>, links: Links): Record<string, unknown> {
  const out: Record<string, unknown> = { ...properties };
  const toLink = (value: unknown) => (typeof value === 'string' && value.startsWith('projects/') ? link(links, value) : value);
  if (Array.isArray(out['networkInterfaces'])) {
    out['networkInterfaces'] = (out['networkInterfaces'] as Record<string, unknown>[]).map((nic) => ({
      ...nic,
      network: toLink(nic['network']),
      ...(nic['subnetwork'] === undefined ? {} : { subnetwork: toLink(nic['subnetwork']) }),
    }));
  }
  if (Array.isArray(out['disks'])) {
    out['disks'] = (out['disks'] as Record<string, unknown>[]).map((disk) => ({ ...disk, source: toLink(disk['source']) }));
  }
  return out;
}

/** renderInstance is the wire form, links on the caller's address. */
export function renderInstance(instance: StoredInstance, links: Links): Record<string, unknown> {
  return {
    kind: 'compute#instance',
    id: instance.id,
    creationTimestamp: rfc3339(instance.creationTime),
    name: instance.name,
    description: '',
    tags: { fingerprint: '42WmSpB8rSM=' },
    ...linkPaths(instance.properties, links),
    machineType: link(links, instance.machineType),
    status: instance.status,
    zone: link(links, `projects/${instance.project}/${scopePath(instance.scope)}`),
    ...(Object.keys(instance.labels).length > 0 ? { labels: { ...instance.labels } } : {}),
    labelFingerprint: instance.labelFingerprint,
    fingerprint: instance.fingerprint,
    startRestricted: false,
    deletionProtection: instance.properties['deletionProtection'] ?? false,
    cpuPlatform: 'Intel Broadwell',
    ...(instance.lastStartTime === undefined ? {} : { lastStartTimestamp: rfc3339(instance.lastStartTime) }),
    ...(instance.lastStopTime === undefined ? {} : { lastStopTimestamp: rfc3339(instance.lastStopTime) }),
    ...(instance.lastSuspendedTime === undefined ? {} : { lastSuspendedTimestamp: rfc3339(instance.lastSuspendedTime) }),
    selfLink: link(links, instancePath(instance.project, instance.scope, instance.name)),
  };
}
