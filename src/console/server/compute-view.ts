/**
 * The compute views: security policies (rules in priority order, and the history the family
 * records with each change, as diffs), instance templates, Operations newest first. Read through
 * the compute family's face (services/compute/public.ts); a principal sees them with what the
 * API's reads ask of it: one of its read scopes and the family's read permission (the admin holds
 * every one).
 */
import {
  COMPUTE_READ_PERMISSIONS,
  COMPUTE_READ_SCOPES,
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
  policies() {
    return securityPolicies(this.store);
  }

  /** policy is one policy with its rules (priority order) and its history (newest first, each with its diff). */
  async policy(key: string) {
    const detail = await securityPolicyDetail(this.store, key);
    if (detail === undefined) throw new ConsoleError(404, `No security policy ${JSON.stringify(key)}.`);
    const history: { method: string; priority?: number; time: number; user: string; operation: string; revision: number; diff: DiffLine[] }[] =
      detail.history.map(({ before, after, ...change }) => ({ ...change, diff: policyDiff(before as never, after as never) }));
    return { ...detail, history };
  }

  /** templates lists every instance template. */
  templates() {
    return instanceTemplates(this.store);
  }

  /** operations lists the newest Operations first. */
  operations() {
    return recentOperations(this.store, OPERATIONS_SHOWN);
  }
}
