/**
 * The compute family's face: what the layers above it (the console, the guard, bench, cli) may
 * use — read models and the functions that read them — so the store kinds, key layouts and
 * records inside the family can change without them (test/architecture/ refuses any other import
 * from outside the family). The security-policy evaluation engine is a face of its own,
 * public-evaluation.ts, so a reader of these views does not load the rules language; the
 * workloads' read models are declared in public-read-models.ts, types alone, which the browser
 * console imports too.
 */
import type { Store } from '../../store/store.ts';
import { INSTANCE_TEMPLATES_KIND, type StoredTemplate } from './instance-templates/template.ts';
import { OPERATIONS_KIND, type OperationStatus, type StoredOperation } from './operations/operation.ts';
import { historyPrefix, POLICY_HISTORY_KIND, type PolicyHistoryEntry } from './security-policies/history.ts';
import { SECURITY_POLICIES_KIND, type StoredPolicy } from './security-policies/policy.ts';
import type { StoredRule } from './security-policies/prepare-rule.ts';
import type { Scope } from './shared/locations.ts';
// Instances, managed instance groups and backend services (the block at the end).
import { BACKEND_SERVICES_KIND, backendServicePath, type StoredBackendService } from './backend-services/backend-service.ts';
import { MANAGERS_KIND, managerPath, type StoredManager } from './instance-group-managers/manager.ts';
import { displayedAction, isStable } from './instance-group-managers/rollout.ts';
import { INSTANCES_KIND, instancePath, type StoredInstance } from './instances/instance.ts';
import type {
  AttachedPolicy,
  BackendServiceDetail,
  BackendServiceSummary,
  InstanceDetail,
  InstanceSummary,
  ManagedGroupDetail,
  ManagedGroupSummary,
  ManagedInstanceSummary,
} from './public-read-models.ts';

export type { OperationStatus } from './operations/operation.ts';
export type * from './public-read-models.ts';
export { COMPUTE_READ_SCOPES } from './shared/authorize.ts';

/**
 * COMPUTE_READ_PERMISSIONS are the IAM permissions that read one of each resource these views
 * list (a principal holding one may read what its view shows).
 */
export const COMPUTE_READ_PERMISSIONS = {
  securityPolicies: 'compute.securityPolicies.get',
  instanceTemplates: 'compute.instanceTemplates.get',
  operations: 'compute.globalOperations.get',
} as const;

/** SecurityPolicyVersion is a security policy's fields at one revision (what a history entry holds before and after). */
export type SecurityPolicyVersion = StoredPolicy;

/** SecurityPolicyRule is one rule of a policy as kept (match, action, priority, …). */
export type SecurityPolicyRule = StoredRule;

/** SecurityPolicySummary is one security policy in a list. */
export interface SecurityPolicySummary {
  /** The policy's id among every project's policies, for securityPolicyDetail. */
  readonly key: string;
  readonly project: string;
  /** `global` or the region's name. */
  readonly location: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  /** How many rules it has. */
  readonly rules: number;
}

/** SecurityPolicyChange is one recorded change of a policy. */
export interface SecurityPolicyChange {
  /** The API method that made it (`insert`, `addRule`, `patchRule`, `removeRule`, `patch`, `setLabels`). */
  readonly method: string;
  /** The rule priority the method named (patchRule, removeRule). */
  readonly priority?: number;
  /** When it was applied (epoch milliseconds, the server's clock). */
  readonly time: number;
  /** The email of the principal whose Operation applied it. */
  readonly user: string;
  /** The Operation's name. */
  readonly operation: string;
  /** The store revision of the change (increasing). */
  readonly revision: number;
  readonly before: SecurityPolicyVersion | null;
  readonly after: SecurityPolicyVersion;
}

/** SecurityPolicyDetail is one policy with its rules (priority order) and its history (newest first). */
export interface SecurityPolicyDetail extends Omit<SecurityPolicySummary, 'rules'> {
  readonly labels: Readonly<Record<string, string>>;
  readonly rules: readonly SecurityPolicyRule[];
  readonly history: readonly SecurityPolicyChange[];
}

/** InstanceTemplateSummary is one instance template in a list. */
export interface InstanceTemplateSummary {
  readonly key: string;
  readonly project: string;
  readonly name: string;
  readonly description: string;
  /** Creation time, epoch milliseconds. */
  readonly created: number;
  /** The machine type the template's properties name, or empty. */
  readonly machineType: string;
}

/** OperationSummary is one Operation in a list. */
export interface OperationSummary {
  readonly name: string;
  readonly project: string;
  readonly location: string;
  readonly operationType: string;
  readonly targetPath: string;
  readonly status: OperationStatus;
  readonly progress: number;
  readonly user: string;
  readonly insertTime: number;
  readonly endTime?: number;
  readonly httpErrorStatusCode?: number;
  readonly httpErrorMessage?: string;
  readonly errors: readonly { readonly code: string; readonly message: string }[];
}

/** locationOf is a scope as a list shows it: `global`, or the region's name. */
function locationOf(scope: Scope): string {
  return scope.kind === 'global' ? 'global' : scope.name;
}

/** securityPolicies lists every security policy, global and regional, of every project, in key order. */
export async function securityPolicies(store: Store): Promise<SecurityPolicySummary[]> {
  return (await store.list<StoredPolicy>(SECURITY_POLICIES_KIND)).map(({ key, value }) => ({
    key,
    project: value.project,
    location: locationOf(value.scope),
    name: value.name,
    type: value.type,
    description: value.description,
    rules: value.rules.length,
  }));
}

/** securityPolicyDetail is the policy with this key, its rules in priority order and its history newest first; undefined when there is none. */
export async function securityPolicyDetail(store: Store, key: string): Promise<SecurityPolicyDetail | undefined> {
  const record = await store.get<StoredPolicy>(SECURITY_POLICIES_KIND, key);
  if (record === undefined) return undefined;
  const history = await store.list<PolicyHistoryEntry>(POLICY_HISTORY_KIND, { prefix: historyPrefix(key) });
  const policy = record.value;
  return {
    key,
    project: policy.project,
    location: locationOf(policy.scope),
    name: policy.name,
    type: policy.type,
    description: policy.description,
    labels: policy.labels,
    rules: [...policy.rules].sort((a, b) => Number(a.priority) - Number(b.priority)),
    history: history
      .map(({ value, revision }) => ({
        method: value.method,
        ...(value.priority === undefined ? {} : { priority: value.priority }),
        time: value.time,
        user: value.user,
        operation: value.operation,
        revision,
        before: value.before,
        after: value.after,
      }))
      .reverse(),
  };
}

/** instanceTemplates lists every instance template of every project, in key order. */
export async function instanceTemplates(store: Store): Promise<InstanceTemplateSummary[]> {
  return (await store.list<StoredTemplate>(INSTANCE_TEMPLATES_KIND)).map(({ key, value }) => ({
    key,
    project: value.project,
    name: value.name,
    description: value.description,
    created: value.creationTime,
    machineType: typeof value.properties['machineType'] === 'string' ? value.properties['machineType'] : '',
  }));
}

/** recentOperations lists at most `limit` Operations of every project, newest first. */
export async function recentOperations(store: Store, limit: number): Promise<OperationSummary[]> {
  const all = (await store.list<StoredOperation>(OPERATIONS_KIND)).map((record) => record.value);
  all.sort((a, b) => b.insertTime - a.insertTime || (a.name < b.name ? 1 : -1));
  return all.slice(0, limit).map((op) => ({
    name: op.name,
    project: op.project,
    location: locationOf(op.scope),
    operationType: op.operationType,
    targetPath: op.targetPath,
    status: op.status,
    progress: op.progress,
    user: op.user,
    insertTime: op.insertTime,
    ...(op.endTime === undefined ? {} : { endTime: op.endTime }),
    ...(op.httpErrorStatusCode === undefined ? {} : { httpErrorStatusCode: op.httpErrorStatusCode, httpErrorMessage: op.httpErrorMessage ?? '' }),
    errors: (op.errors ?? []).map((error) => ({ code: error.code, message: error.message })),
  }));
}

// ---------------------------------------------------------------------------------------------
// Instances, managed instance groups and backend services (issue 43 item 5: the console's views
// of them). A block of its own: other work adds to this face too.
// ---------------------------------------------------------------------------------------------

/** COMPUTE_WORKLOAD_READ_PERMISSIONS are the IAM permissions that read one instance, group or backend service. */
export const COMPUTE_WORKLOAD_READ_PERMISSIONS = {
  instances: 'compute.instances.get',
  instanceGroupManagers: 'compute.instanceGroupManagers.get',
  backendServices: 'compute.backendServices.get',
} as const;

/** lastSegment is a path's last part (a machine type's or a template's name). */
function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** firstInterface is an instance's first network interface, as kept. */
function firstInterface(instance: StoredInstance): Readonly<Record<string, unknown>> | undefined {
  const nics = instance.properties['networkInterfaces'];
  return Array.isArray(nics) && typeof nics[0] === 'object' && nics[0] !== null ? (nics[0] as Record<string, unknown>) : undefined;
}

/** createdByOf is the `created-by` metadata item's value, or empty. */
function createdByOf(instance: StoredInstance): string {
  const items = (instance.properties['metadata'] as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items)) return '';
  const item = (items as { key?: unknown; value?: unknown }[]).find((entry) => entry?.key === 'created-by');
  return typeof item?.value === 'string' ? item.value : '';
}

function instanceSummary(key: string, instance: StoredInstance): InstanceSummary {
  const nic = firstInterface(instance);
  const configs = nic?.['accessConfigs'];
  const natIP = Array.isArray(configs) ? (configs[0] as { natIP?: unknown } | undefined)?.natIP : undefined;
  return {
    key,
    project: instance.project,
    zone: locationOf(instance.scope),
    name: instance.name,
    path: instancePath(instance.project, instance.scope, instance.name),
    status: instance.status,
    machineType: lastSegment(instance.machineType),
    internalIp: typeof nic?.['networkIP'] === 'string' ? nic['networkIP'] : '',
    externalIp: typeof natIP === 'string' ? natIP : '',
    sourceTemplate: instance.sourceInstanceTemplate ?? '',
    createdBy: createdByOf(instance),
    labels: instance.labels,
    created: instance.creationTime,
  };
}

/** instances lists every VM instance of every project, in key order (project, zone, name). */
export async function instances(store: Store): Promise<InstanceSummary[]> {
  return (await store.list<StoredInstance>(INSTANCES_KIND)).map(({ key, value }) => instanceSummary(key, value));
}

/** instanceDetail is the instance with this key; undefined when there is none. */
export async function instanceDetail(store: Store, key: string): Promise<InstanceDetail | undefined> {
  const record = await store.get<StoredInstance>(INSTANCES_KIND, key);
  if (record === undefined) return undefined;
  const instance = record.value;
  return {
    ...instanceSummary(key, instance),
    ...(instance.lastStartTime === undefined ? {} : { lastStartTime: instance.lastStartTime }),
    ...(instance.lastStopTime === undefined ? {} : { lastStopTime: instance.lastStopTime }),
    properties: instance.properties,
  };
}

function groupSummary(key: string, group: StoredManager): ManagedGroupSummary {
  return {
    key,
    project: group.project,
    location: locationOf(group.scope),
    locationKind: group.scope.kind === 'region' ? 'region' : 'zone',
    name: group.name,
    path: managerPath(group.project, group.scope, group.name),
    description: group.description,
    targetSize: group.targetSize,
    instanceTemplate: group.instanceTemplate,
    instances: group.members.length,
    isStable: isStable(group.members, group.targetSize),
    created: group.creationTime,
  };
}

/** instanceGroupManagers lists every managed instance group, zonal and regional, of every project, in key order. */
export async function instanceGroupManagers(store: Store): Promise<ManagedGroupSummary[]> {
  return (await store.list<StoredManager>(MANAGERS_KIND)).map(({ key, value }) => groupSummary(key, value));
}

/** instanceGroupManagerDetail is the group with this key and its instances (as listManagedInstances shows them); undefined when there is none. */
export async function instanceGroupManagerDetail(store: Store, key: string): Promise<ManagedGroupDetail | undefined> {
  const record = await store.get<StoredManager>(MANAGERS_KIND, key);
  if (record === undefined) return undefined;
  const group = record.value;
  const managedInstances = await Promise.all(
    group.members.map(async (member): Promise<ManagedInstanceSummary> => {
      const [, project = '', , zone = '', , name = ''] = member.instance.split('/');
      const instanceKey = `${project}/zones/${zone}/${name}`;
      const instance = await store.get<StoredInstance>(INSTANCES_KIND, instanceKey);
      return {
        name,
        zone,
        key: instanceKey,
        path: member.instance,
        currentAction: displayedAction(member),
        ...(instance === undefined ? {} : { status: instance.value.status }),
        template: member.template,
      };
    }),
  );
  return {
    ...groupSummary(key, group),
    baseInstanceName: group.baseInstanceName,
    versions: group.versions,
    updatePolicy: group.updatePolicy,
    managedInstances,
  };
}

/** POLICY_PATH reads a security policy's path: project, scope path, name. */
const POLICY_PATH = /^projects\/([^/]+)\/(global|regions\/[^/]+)\/securityPolicies\/([^/]+)$/;

/** attached is a policy path with the key securityPolicyDetail reads it by. */
function attached(path: string): AttachedPolicy {
  const match = POLICY_PATH.exec(path);
  return { path, key: match === null ? undefined : `${match[1]}/${match[2]}/${match[3]}`, name: lastSegment(path) };
}

function backendServiceSummary(key: string, service: StoredBackendService): BackendServiceSummary {
  return {
    key,
    project: service.project,
    location: locationOf(service.scope),
    name: service.name,
    path: backendServicePath(service.project, service.scope, service.name),
    loadBalancingScheme: service.loadBalancingScheme,
    protocol: typeof service.settings['protocol'] === 'string' ? service.settings['protocol'] : '',
    ...(service.securityPolicy === undefined ? {} : { securityPolicy: attached(service.securityPolicy) }),
    ...(service.edgeSecurityPolicy === undefined ? {} : { edgeSecurityPolicy: attached(service.edgeSecurityPolicy) }),
    created: service.creationTime,
  };
}

/** backendServices lists every backend service, global and regional, of every project, in key order. */
export async function backendServices(store: Store): Promise<BackendServiceSummary[]> {
  return (await store.list<StoredBackendService>(BACKEND_SERVICES_KIND)).map(({ key, value }) => backendServiceSummary(key, value));
}

/** backendServiceDetail is the backend service with this key; undefined when there is none. */
export async function backendServiceDetail(store: Store, key: string): Promise<BackendServiceDetail | undefined> {
  const record = await store.get<StoredBackendService>(BACKEND_SERVICES_KIND, key);
  return record === undefined ? undefined : { ...backendServiceSummary(key, record.value), settings: record.value.settings };
}

/** backendServicesUsingPolicy lists the backend services (of any project: a reference may cross projects) that attach the policy with this key, as backend or edge policy. */
export async function backendServicesUsingPolicy(store: Store, policyKey: string): Promise<BackendServiceSummary[]> {
  return (await store.list<StoredBackendService>(BACKEND_SERVICES_KIND))
    .map(({ key, value }) => backendServiceSummary(key, value))
    .filter((service) => service.securityPolicy?.key === policyKey || service.edgeSecurityPolicy?.key === policyKey);
}
