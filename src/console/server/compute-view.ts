/**
 * The compute views: security policies (rules in priority order, the history the family records
 * with each change, as diffs, and the backend services attaching each), instance templates, VM
 * instances, managed instance groups (with their instances), backend services (with the policies
 * they attach), Operations newest first. Read through
 * the compute family's face (services/compute/public.ts); a principal sees them with what the
 * API's reads ask of it: one of its read scopes and the family's read permission (the admin holds
 * every one).
 */
import {
  backendServiceDetail,
  backendServices,
  backendServicesUsingPolicy,
  COMPUTE_READ_PERMISSIONS,
  COMPUTE_READ_SCOPES,
  COMPUTE_WORKLOAD_READ_PERMISSIONS,
  instanceDetail,
  instanceGroupManagerDetail,
  instanceGroupManagers,
  instances,
  instanceTemplates,
  recentOperations,
  securityPolicies,
  securityPolicyDetail,
} from '../../services/compute/public.ts';
import type { Store } from '../../store/store.ts';
import { ConsoleError } from './errors.ts';
import { type DiffLine, policyDiff } from './policy-diff.ts';
import { scopeList } from './scope-names.ts';
import type { SignedIn } from './sessions.ts';

/** OPERATIONS_SHOWN is how many Operations the list shows (newest first). */
const OPERATIONS_SHOWN = 200;

/** PERMISSIONS are what each view asks of a principal (the family's read permissions). */
const PERMISSIONS = {
  policies: COMPUTE_READ_PERMISSIONS.securityPolicies,
  templates: COMPUTE_READ_PERMISSIONS.instanceTemplates,
  operations: COMPUTE_READ_PERMISSIONS.operations,
  instances: COMPUTE_WORKLOAD_READ_PERMISSIONS.instances,
  groups: COMPUTE_WORKLOAD_READ_PERMISSIONS.instanceGroupManagers,
  'backend services': COMPUTE_WORKLOAD_READ_PERMISSIONS.backendServices,
} as const;

/** ComputeViewName is one of the compute views, as a permission refusal names it. */
export type ComputeViewName = keyof typeof PERMISSIONS;

/** ComputeView answers the compute views' requests. */
export class ComputeView {
  constructor(private readonly store: Store) {}

  /** check throws 403 unless the principal holds a compute read scope (the family's own list) and the view's permission. */
  check(signedIn: SignedIn, view: ComputeViewName): void {
    if (!signedIn.principal.hasAnyScope(COMPUTE_READ_SCOPES))
      throw new ConsoleError(
        403,
        `${signedIn.principal.email} may not see ${view}: its token carries none of the Compute Engine API's read scopes (${scopeList(COMPUTE_READ_SCOPES)}).`,
      );
    if (!signedIn.principal.hasPermission(PERMISSIONS[view]))
      throw new ConsoleError(403, `${signedIn.principal.email} may not see ${view}: it needs ${PERMISSIONS[view]}.`);
  }

  /** policies lists every policy, global and regional, of every project. */
  policies() {
    return securityPolicies(this.store);
  }

  /** policy is one policy with its rules (priority order), its history (newest first, each with its diff) and the backend services attaching it. */
  async policy(key: string) {
    const detail = await securityPolicyDetail(this.store, key);
    if (detail === undefined) throw new ConsoleError(404, `No security policy ${JSON.stringify(key)}.`);
    const history: { method: string; priority?: number; time: number; user: string; operation: string; revision: number; diff: DiffLine[] }[] =
      detail.history.map(({ before, after, ...change }) => ({ ...change, diff: policyDiff(before as never, after as never) }));
    return { ...detail, history, usedBy: await backendServicesUsingPolicy(this.store, key) };
  }

  /** templates lists every instance template. */
  templates() {
    return instanceTemplates(this.store);
  }

  /** operations lists the newest Operations first. */
  operations() {
    return recentOperations(this.store, OPERATIONS_SHOWN);
  }

  /** instances lists every VM instance. */
  instances() {
    return instances(this.store);
  }

  /** instance is one instance with everything it was given and filled. */
  async instance(key: string) {
    const detail = await instanceDetail(this.store, key);
    if (detail === undefined) throw new ConsoleError(404, `No instance ${JSON.stringify(key)}.`);
    return detail;
  }

  /** groups lists every managed instance group, zonal and regional. */
  groups() {
    return instanceGroupManagers(this.store);
  }

  /** group is one managed instance group with its versions, update policy and managed instances. */
  async group(key: string) {
    const detail = await instanceGroupManagerDetail(this.store, key);
    if (detail === undefined) throw new ConsoleError(404, `No managed instance group ${JSON.stringify(key)}.`);
    return detail;
  }

  /** backendServices lists every backend service, global and regional. */
  backendServices() {
    return backendServices(this.store);
  }

  /** backendService is one backend service with its settings and the policies it attaches. */
  async backendService(key: string) {
    const detail = await backendServiceDetail(this.store, key);
    if (detail === undefined) throw new ConsoleError(404, `No backend service ${JSON.stringify(key)}.`);
    return detail;
  }
}
