/**
 * The compute family's face: what the layers above it (the console, the guard, bench, cli) may
 * use — read models and the functions that read them — so the store kinds, key layouts and
 * records inside the family can change without them (test/architecture/ refuses any other import
 * from outside the family). The security-policy evaluation engine is a face of its own,
 * public-evaluation.ts, so a reader of these views does not load the rules language.
 */
import type { Store } from '../../store/store.ts';
import { INSTANCE_TEMPLATES_KIND, type StoredTemplate } from './instance-templates/template.ts';
import { OPERATIONS_KIND, type OperationStatus, type StoredOperation } from './operations/operation.ts';
import { historyPrefix, POLICY_HISTORY_KIND, type PolicyHistoryEntry } from './security-policies/history.ts';
import { SECURITY_POLICIES_KIND, type StoredPolicy } from './security-policies/policy.ts';
import type { StoredRule } from './security-policies/prepare-rule.ts';
import type { Scope } from './shared/locations.ts';

export type { OperationStatus } from './operations/operation.ts';
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
