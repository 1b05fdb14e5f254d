import type { PagedSource } from '../shared/list-query.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import type { Principal } from '../../../core/auth.ts';
import type { Clock } from '../../../lib/clock.ts';
import { uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { Store } from '../../../store/store.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { alreadyExists, notFound } from '../shared/errors.ts';
import { SECURITY_POLICY_USAGE, Usages } from '../shared/in-use.ts';
import type { Scope } from '../shared/locations.ts';
import { ExpressionCache } from './expression-cache.ts';
import { forgetPolicyHistory, recordPolicyChange } from './history.ts';
import type { ChangeEnv } from './policy-mutations.ts';
import { SECURITY_POLICIES_KIND, policyKey, policyPath, storedPolicy, type StoredPolicy } from './policy.ts';

/** PolicyChange is one modification of an existing policy, as a durable Operation payload. */
export type PolicyChange =
  | { readonly method: 'addRule'; readonly body: unknown }
  | { readonly method: 'patchRule'; readonly priority: number; readonly body: unknown; readonly updateMask: string | undefined }
  | { readonly method: 'removeRule'; readonly priority: number }
  | { readonly method: 'patch'; readonly body: unknown; readonly updateMask: string | undefined }
  | { readonly method: 'setLabels'; readonly body: unknown };

/** PolicyRef names one policy. */
export interface PolicyRef {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** ChangeOptions are the query options of a mutation. */
export interface ChangeOptions {
  readonly requestId?: string | undefined;
  /** Validate everything, change nothing (addRule, patchRule, insert). */
  readonly validateOnly?: boolean;
}

interface ChangeWork extends PolicyRef {
  readonly change: PolicyChange;
}

let loadedMutations: Promise<typeof import('./policy-mutations.ts')> | undefined;

/**
 * mutations loads validation and the changes themselves (the rule and policy schemas, the rules
 * language's parser and checker) with the first policy change, not at start-up. The promise is
 * kept: an import() per call costs a trip through the module loader on every change.
 */
const mutations = () => (loadedMutations ??= import('./policy-mutations.ts'));

/** RULE_METHODS are the changes whose result is the policy they apply to with its rules changed and a new fingerprint, nothing else drawn. */
const RULE_METHODS: ReadonlySet<PolicyChange['method']> = new Set(['addRule', 'patchRule', 'removeRule']);

const ACTIONS = {
  insert: 'securityPolicies.insert',
  delete: 'securityPolicies.delete',
  change: 'securityPolicies.change',
  validateOnly: 'securityPolicies.validateOnly',
} as const;

/**
 * SecurityPolicyService implements security policies, global and regional. Every mutation is
 * validated on the request (so a bad one is a synchronous 4xx that changes nothing) and then
 * applied by its Operation's executor, inside the store transaction that marks it DONE, to the
 * policy as it is at that moment: concurrent rule changes serialise there and none is lost.
 * `validateOnly` runs the same validation and returns an Operation whose work does nothing, so a
 * client that waits on it sees DONE and an unchanged policy.
 */
export class SecurityPolicyService {
  /** Verdicts on expressions: each change is validated twice (request, Operation) and rules are resent whole. */
  readonly #expressions = new ExpressionCache();
  /**
   * The policy a rule change made when validated on its request, and the revision it was made
   * from: the Operation applying the change to that same revision (instant Operations, or no
   * write in between) takes it with its own fingerprint instead of validating everything again.
   * Keyed by the work object itself, which lives as long as this process holds the Operation.
   */
  readonly #validated = new WeakMap<ChangeWork, { readonly revision: number; readonly next: StoredPolicy }>();

  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    /** What refers to policies (backend services): a policy in use cannot be deleted. */
    private readonly usages: Usages = new Usages(),
  ) {
    operations.register(ACTIONS.insert, async (tx, payload, op) => {
      const policy = payload as StoredPolicy;
      const key = policyKey(policy.project, policy.scope, policy.name);
      if ((await tx.get(SECURITY_POLICIES_KIND, key)) !== undefined) throw alreadyExists(policyPath(policy.project, policy.scope, policy.name));
      const created = await tx.put(SECURITY_POLICIES_KIND, key, { ...policy, creationTime: this.clock.now() }, { expectRevision: 0 });
      await recordPolicyChange(tx, key, created.revision, {
        method: 'insert',
        time: this.clock.now(),
        user: op.user,
        operation: op.name,
        before: null,
        after: created.value,
      });
      return { targetId: policy.id };
    });
    operations.register(ACTIONS.delete, async (tx, payload) => {
      const ref = payload as PolicyRef;
      const key = policyKey(ref.project, ref.scope, ref.name);
      await this.usages.refuseInUse(tx, SECURITY_POLICY_USAGE, ref.project, policyPath(ref.project, ref.scope, ref.name));
      if ((await tx.delete(SECURITY_POLICIES_KIND, key)) === undefined) {
        throw notFound(policyPath(ref.project, ref.scope, ref.name));
      }
      await forgetPolicyHistory(tx, key);
    });
    operations.register(ACTIONS.change, async (tx, payload, op) => {
      const work = payload as ChangeWork;
      const record = await tx.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(work.project, work.scope, work.name));
      if (record === undefined) throw notFound(policyPath(work.project, work.scope, work.name));
      const before = storedPolicy(record.value);
      const env = this.#env(work.change.method === 'setLabels');
      const validated = this.#validated.get(work);
      // A rule change's result depends on the policy and its fingerprint only (see RULE_METHODS).
      const next =
        validated !== undefined && validated.revision === record.revision
          ? { ...validated.next, fingerprint: env.fingerprint }
          : await this.#apply(before, work.change, env);
      const written = await tx.put(SECURITY_POLICIES_KIND, record.key, next, { expectRevision: record.revision });
      await recordPolicyChange(tx, record.key, written.revision, {
        method: work.change.method,
        ...('priority' in work.change ? { priority: work.change.priority } : {}),
        time: this.clock.now(),
        user: op.user,
        operation: op.name,
        before,
        after: next,
      });
      return { targetId: next.id };
    });
    operations.register(ACTIONS.validateOnly, async () => undefined);
  }

  /** insert validates the body (400, 409 on the request) and starts the Operation that creates the policy. */
  async insert(project: string, scope: Scope, body: unknown, principal: Principal, options: ChangeOptions): Promise<StoredOperation> {
    const { buildPolicy } = await mutations();
    const earlier = await this.operations.byRequestId(project, scope, options.requestId);
    if (earlier !== undefined) return earlier;
    const policy = buildPolicy(body, { project, scope, id: uint64Id(this.ids), creationTime: this.clock.now(), ...this.#env() });
    const path = policyPath(project, scope, policy.name);
    if ((await this.store.get(SECURITY_POLICIES_KIND, policyKey(project, scope, policy.name))) !== undefined) {
      // A concurrent twin of this request (same requestId) may have created it meanwhile: its Operation is the answer.
      const twin = await this.operations.byRequestId(project, scope, options.requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(path);
    }
    return this.operations.start({
      project,
      scope,
      operationType: 'insert',
      targetPath: path,
      targetId: policy.id,
      user: principal.email,
      requestId: options.requestId,
      work: options.validateOnly === true ? { action: ACTIONS.validateOnly, payload: null } : { action: ACTIONS.insert, payload: policy },
    });
  }

  /** get reads one policy or throws the real 404. */
  async get(ref: PolicyRef): Promise<StoredPolicy> {
    const record = await this.store.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(policyPath(ref.project, ref.scope, ref.name));
    return storedPolicy(record.value);
  }

  /** list returns the policies of one scope, or of every scope, in name order. */
  async list(project: string, scope?: Scope): Promise<StoredPolicy[]> {
    return (await this.source(project, scope)(undefined, undefined)).map((record) => record.value);
  }

  /** source reads one scope's policies, or every scope's when `scope` is undefined, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredPolicy> {
    const prefix = scope === undefined ? `${project}/` : policyKey(project, scope, '');
    return async (after, limit) =>
      (
        await this.store.list<StoredPolicy>(SECURITY_POLICIES_KIND, {
          prefix,
          ...(after === undefined ? {} : { after }),
          ...(limit === undefined ? {} : { limit }),
        })
      ).map((record) => ({ key: record.key, value: storedPolicy(record.value) }));
  }

  /** delete checks the policy exists (404 on the request) and starts the Operation that removes it. */
  async delete(ref: PolicyRef, principal: Principal, options: ChangeOptions): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, options.requestId);
    if (earlier !== undefined) return earlier;
    const policy = await this.get(ref);
    await this.usages.refuseInUse(this.store, SECURITY_POLICY_USAGE, ref.project, policyPath(ref.project, ref.scope, ref.name));
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: 'delete',
      targetPath: policyPath(ref.project, ref.scope, ref.name),
      targetId: policy.id,
      user: principal.email,
      requestId: options.requestId,
      work: { action: ACTIONS.delete, payload: { project: ref.project, scope: ref.scope, name: ref.name } satisfies PolicyRef },
    });
  }

  /**
   * change validates a modification against the current policy (4xx on the request, nothing
   * written) and starts the Operation that applies it. The operationType is the method name, so
   * gcloud prints "Updated" and reads the policy back (no rule method ends in `delete`).
   */
  async change(ref: PolicyRef, change: PolicyChange, principal: Principal, options: ChangeOptions): Promise<StoredOperation> {
    await mutations();
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, options.requestId);
    if (earlier !== undefined) return earlier;
    const record = await this.store.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(policyPath(ref.project, ref.scope, ref.name));
    const policy = storedPolicy(record.value);
    // Validation: the fingerprint is drawn when the change is applied.
    const next = await this.#apply(policy, change, { fingerprint: '', labelFingerprint: '', expressions: this.#expressions });
    const work: ChangeWork = { project: ref.project, scope: ref.scope, name: ref.name, change };
    if (RULE_METHODS.has(change.method)) this.#validated.set(work, { revision: record.revision, next });
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: change.method,
      targetPath: policyPath(ref.project, ref.scope, ref.name),
      targetId: policy.id,
      user: principal.email,
      requestId: options.requestId,
      work: options.validateOnly === true ? { action: ACTIONS.validateOnly, payload: null } : { action: ACTIONS.change, payload: work },
    });
  }

  async #apply(policy: StoredPolicy, change: PolicyChange, env: ChangeEnv): Promise<StoredPolicy> {
    const { addRule, patchPolicy, patchRule, removeRule, setLabels } = await mutations();
    switch (change.method) {
      case 'addRule':
        return addRule(policy, change.body, env);
      case 'patchRule':
        return patchRule(policy, change.priority, change.body, change.updateMask, env);
      case 'removeRule':
        return removeRule(policy, change.priority, env.fingerprint);
      case 'patch':
        return patchPolicy(policy, change.body, change.updateMask, env);
      case 'setLabels':
        return setLabels(policy, change.body, env);
    }
  }

  /** env draws the fingerprints a change gives the policy (a label fingerprint only when labels change). */
  #env(labels = false): ChangeEnv {
    return { fingerprint: newFingerprint(this.ids), ...(labels ? { labelFingerprint: newFingerprint(this.ids) } : {}), expressions: this.#expressions };
  }
}
