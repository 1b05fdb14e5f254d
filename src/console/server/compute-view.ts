/**
 * The compute views: security policies (rules in priority order, and the history the family
 * records with each change, as diffs), instance templates, Operations newest first. Read from
 * the store under the compute family's own kinds; a principal sees them with what the API's reads
 * ask of it: one of its read scopes and the family's read permission (the admin holds every one).
 */
import { COMPUTE_READ_SCOPES } from '../../services/compute/shared/authorize.ts';
import { INSTANCE_TEMPLATES_KIND } from '../../services/compute/instance-templates/template.ts';
import { OPERATIONS_KIND, type StoredOperation } from '../../services/compute/operations/operation.ts';
import { historyPrefix, POLICY_HISTORY_KIND, type PolicyHistoryEntry } from '../../services/compute/security-policies/history.ts';
import { SECURITY_POLICIES_KIND, type StoredPolicy } from '../../services/compute/security-policies/policy.ts';
import type { Store } from '../../store/store.ts';
import { ConsoleError } from './errors.ts';
import { type DiffLine, policyDiff } from './policy-diff.ts';
import { scopeList } from './scope-names.ts';
import type { SignedIn } from './sessions.ts';

/** OPERATIONS_SHOWN is how many Operations the list shows (newest first). */
const OPERATIONS_SHOWN = 200;

/** PERMISSIONS are what each view asks of a principal (the family's read permissions). */
const PERMISSIONS = {
  policies: 'compute.securityPolicies.get',
  templates: 'compute.instanceTemplates.get',
  operations: 'compute.globalOperations.get',
} as const;

/** ComputeView answers the compute views' requests. */
export class ComputeView {
  constructor(private readonly store: Store) {}

  /** check throws 403 unless the principal holds a compute read scope (the family's own list) and the view's permission. */
  check(signedIn: SignedIn, view: keyof typeof PERMISSIONS): void {
    if (!signedIn.principal.hasAnyScope(COMPUTE_READ_SCOPES))
      throw new ConsoleError(
        403,
        `${signedIn.principal.email} may not see ${view}: its token carries none of the Compute Engine API's read scopes (${scopeList(COMPUTE_READ_SCOPES)}).`,
      );
    if (!signedIn.principal.hasPermission(PERMISSIONS[view]))
      throw new ConsoleError(403, `${signedIn.principal.email} may not see ${view}: it needs ${PERMISSIONS[view]}.`);
  }

  /** policies lists every policy, global and regional, of every project. */
  async policies() {
    return (await this.store.list<StoredPolicy>(SECURITY_POLICIES_KIND)).map(({ key, value }) => ({
      key,
      project: value.project,
      location: value.scope.kind === 'global' ? 'global' : value.scope.name,
      name: value.name,
      type: value.type,
      description: value.description,
      rules: value.rules.length,
    }));
  }

  /** policy is one policy with its rules (priority order) and its history (newest first, each with its diff). */
  async policy(key: string) {
    const record = await this.store.get<StoredPolicy>(SECURITY_POLICIES_KIND, key);
    if (record === undefined) throw new ConsoleError(404, `No security policy ${JSON.stringify(key)}.`);
    const history = await this.store.list<PolicyHistoryEntry>(POLICY_HISTORY_KIND, { prefix: historyPrefix(key) });
    const changes: { method: string; priority?: number; time: number; user: string; operation: string; revision: number; diff: DiffLine[] }[] = history
      .map(({ value, revision }) => ({
        method: value.method,
        ...(value.priority === undefined ? {} : { priority: value.priority }),
        time: value.time,
        user: value.user,
        operation: value.operation,
        revision,
        diff: policyDiff(value.before as never, value.after as never),
      }))
      .reverse();
    const policy = record.value;
    return {
      key,
      project: policy.project,
      location: policy.scope.kind === 'global' ? 'global' : policy.scope.name,
      name: policy.name,
      type: policy.type,
      description: policy.description,
      labels: policy.labels,
      rules: [...policy.rules].sort((a, b) => Number(a.priority) - Number(b.priority)),
      history: changes,
    };
  }

  /** templates lists every instance template. */
  async templates() {
    return (
      await this.store.list<{ name: string; project: string; description: string; creationTime: number; properties: Record<string, unknown> }>(
        INSTANCE_TEMPLATES_KIND,
      )
    ).map(({ key, value }) => ({
      key,
      project: value.project,
      name: value.name,
      description: value.description,
      created: value.creationTime,
      machineType: typeof value.properties['machineType'] === 'string' ? value.properties['machineType'] : '',
    }));
  }

  /** operations lists the newest Operations first. */
  async operations() {
    const all = (await this.store.list<StoredOperation>(OPERATIONS_KIND)).map((record) => record.value);
    all.sort((a, b) => b.insertTime - a.insertTime || (a.name < b.name ? 1 : -1));
    return all.slice(0, OPERATIONS_SHOWN).map((op) => ({
      name: op.name,
      project: op.project,
      location: op.scope.kind === 'global' ? 'global' : op.scope.name,
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
}
