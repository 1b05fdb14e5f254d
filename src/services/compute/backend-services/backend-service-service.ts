import type { Principal } from '../../../core/auth.ts';
import type { Clock } from '../../../lib/clock.ts';
import { uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { ReadView, Store } from '../../../store/store.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { SECURITY_POLICIES_KIND, policyKey, storedPolicy, type StoredPolicy } from '../security-policies/policy.ts';
import { alreadyExists, notFound } from '../shared/errors.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import { SECURITY_POLICY_USAGE, type Usages } from '../shared/in-use.ts';
import type { PagedSource } from '../shared/list-query.ts';
import type { Scope } from '../shared/locations.ts';
import { checkAttachment, type PolicyRefPath, type PolicySlot, policyReference } from './attach-rules.ts';
import { BACKEND_SERVICES_KIND, backendServiceKey, backendServicePath, type StoredBackendService } from './backend-service.ts';

let loadedDecoder: Promise<typeof import('./decode-backend-service.ts')> | undefined;
/** decoder loads the schema and the checks with the first write, not at start-up. */
const decoder = () => (loadedDecoder ??= import('./decode-backend-service.ts'));

/** BackendServiceRef names one backend service. */
export interface BackendServiceRef {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** BackendServiceChange is one modification, as a durable Operation payload (the body as sent). */
export type BackendServiceChange =
  | { readonly method: 'patch' | 'update'; readonly body: unknown }
  | { readonly method: 'setSecurityPolicy' | 'setEdgeSecurityPolicy'; readonly body: unknown };

interface ChangeWork extends BackendServiceRef {
  readonly change: BackendServiceChange;
}

const ACTIONS = { insert: 'backendServices.insert', change: 'backendServices.change', delete: 'backendServices.delete' } as const;

/**
 * BackendServiceService implements backend services, global and regional. Every write is checked
 * on the request (a bad one is a synchronous 4xx that changes nothing: the body, the policies it
 * attaches and the rules on which attach where) and applied by its Operation inside the
 * transaction that marks it DONE, where the attached policies are read again, so a policy deleted
 * meanwhile fails the Operation instead of leaving a dangling reference. Security policies ask it
 * (through `Usages`) whether one of them is attached before they are deleted.
 */
export class BackendServiceService {
  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    usages: Usages,
  ) {
    usages.register(SECURITY_POLICY_USAGE, async (view, project, path) => {
      const services = await view.list<StoredBackendService>(BACKEND_SERVICES_KIND, { prefix: `${project}/` });
      const user = services.find((r) => r.value.securityPolicy === path || r.value.edgeSecurityPolicy === path);
      return user === undefined ? undefined : backendServicePath(user.value.project, user.value.scope, user.value.name);
    });
    operations.register(ACTIONS.insert, async (tx, payload) => {
      const service = payload as StoredBackendService;
      const key = backendServiceKey(service.project, service.scope, service.name);
      if ((await tx.get(BACKEND_SERVICES_KIND, key)) !== undefined) throw alreadyExists(backendServicePath(service.project, service.scope, service.name));
      await this.#checkPolicies(tx, service, {});
      await tx.put(BACKEND_SERVICES_KIND, key, { ...service, creationTime: this.clock.now() }, { expectRevision: 0 });
      return { targetId: service.id };
    });
    operations.register(ACTIONS.change, async (tx, payload) => {
      const work = payload as ChangeWork;
      const record = await tx.get<StoredBackendService>(BACKEND_SERVICES_KIND, backendServiceKey(work.project, work.scope, work.name));
      if (record === undefined) throw notFound(backendServicePath(work.project, work.scope, work.name));
      const next = await this.#apply(tx, record.value, work.change);
      await tx.put(BACKEND_SERVICES_KIND, record.key, next, { expectRevision: record.revision });
      return { targetId: next.id };
    });
    operations.register(ACTIONS.delete, async (tx, payload) => {
      const ref = payload as BackendServiceRef;
      if ((await tx.delete(BACKEND_SERVICES_KIND, backendServiceKey(ref.project, ref.scope, ref.name))) === undefined) {
        throw notFound(backendServicePath(ref.project, ref.scope, ref.name));
      }
    });
  }

  /** insert checks the body and its policies (400, 404, 409 on the request) and starts the Operation that creates the backend service. */
  async insert(project: string, scope: Scope, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const { decodeBackendService, newBackendService } = await decoder();
    const earlier = await this.operations.byRequestId(project, scope, requestId);
    if (earlier !== undefined) return earlier;
    const decoded = decodeBackendService(body, project);
    const service = newBackendService(decoded, {
      id: uint64Id(this.ids),
      project,
      scope,
      creationTime: this.clock.now(),
      fingerprint: newFingerprint(this.ids),
    });
    const path = backendServicePath(project, scope, service.name);
    if ((await this.store.get(BACKEND_SERVICES_KIND, backendServiceKey(project, scope, service.name))) !== undefined) {
      const twin = await this.operations.byRequestId(project, scope, requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(path);
    }
    await this.#checkPolicies(this.store, service, fieldsOf(decoded.policies, 'resource.'));
    return this.operations.start({
      project,
      scope,
      operationType: 'insert',
      targetPath: path,
      targetId: service.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.insert, payload: service },
    });
  }

  /** get reads one backend service or throws the real 404. */
  async get(ref: BackendServiceRef): Promise<StoredBackendService> {
    const record = await this.store.get<StoredBackendService>(BACKEND_SERVICES_KIND, backendServiceKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(backendServicePath(ref.project, ref.scope, ref.name));
    return record.value;
  }

  /** source reads one scope's backend services, or every scope's when `scope` is undefined, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredBackendService> {
    const prefix = scope === undefined ? `${project}/` : backendServiceKey(project, scope, '');
    return (after, limit) =>
      this.store.list<StoredBackendService>(BACKEND_SERVICES_KIND, {
        prefix,
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
      });
  }

  /** change checks a modification against the backend service as it is (4xx on the request, nothing written) and starts the Operation applying it. */
  async change(ref: BackendServiceRef, change: BackendServiceChange, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const current = await this.get(ref);
    await this.#apply(this.store, current, change);
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: change.method,
      targetPath: backendServicePath(ref.project, ref.scope, ref.name),
      targetId: current.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.change, payload: { ...ref, change } satisfies ChangeWork },
    });
  }

  /** delete checks the backend service exists (404 on the request) and starts the Operation that removes it. */
  async delete(ref: BackendServiceRef, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const service = await this.get(ref);
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: 'delete',
      targetPath: backendServicePath(ref.project, ref.scope, ref.name),
      targetId: service.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.delete, payload: { project: ref.project, scope: ref.scope, name: ref.name } satisfies BackendServiceRef },
    });
  }

  /** apply is `current` with the change made and its attachments checked against the policies `view` holds. */
  async #apply(view: ReadView, current: StoredBackendService, change: BackendServiceChange): Promise<StoredBackendService> {
    const { changedBackendService, decodeBackendService, decodePolicyReference } = await decoder();
    const fingerprint = newFingerprint(this.ids);
    if (change.method === 'setSecurityPolicy' || change.method === 'setEdgeSecurityPolicy') {
      const slot: PolicySlot = change.method === 'setSecurityPolicy' ? 'securityPolicy' : 'edgeSecurityPolicy';
      const policy = decodePolicyReference(change.body, current.project);
      const { [slot]: _old, ...rest } = current;
      const next: StoredBackendService = { ...rest, ...(policy === null ? {} : { [slot]: policy.path }), fingerprint };
      await this.#checkPolicies(view, next, policy === null ? {} : { [slot]: { ref: policy, field: 'securityPolicy', given: policy.text } });
      return next;
    }
    const decoded = decodeBackendService(change.body, current.project);
    const next = changedBackendService(current, decoded, change.method === 'update', fingerprint);
    await this.#checkPolicies(view, next, fieldsOf(decoded.policies, 'resource.'));
    return next;
  }

  /**
   * checkPolicies reads each policy the backend service holds (404 when gone) and applies the
   * attach rules; `named` says which field of the request named a slot, for the error.
   */
  async #checkPolicies(view: ReadView, service: StoredBackendService, named: Partial<Record<PolicySlot, NamedPolicy>>): Promise<void> {
    for (const slot of ['securityPolicy', 'edgeSecurityPolicy'] as const) {
      const path = service[slot];
      if (path === undefined) continue;
      const ref = named[slot]?.ref ?? policyReference(path, service.project, `resource.${slot}`)!;
      const record = await view.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(ref.project, ref.scope, ref.name));
      if (record === undefined) throw notFound(path);
      const policy = storedPolicy(record.value);
      checkAttachment(slot, named[slot]?.field ?? `resource.${slot}`, named[slot]?.given ?? path, service, policy);
    }
  }
}

/** NamedPolicy is a policy reference as a request gave it. */
interface NamedPolicy {
  readonly ref: PolicyRefPath;
  readonly field: string;
  readonly given: string;
}

function fieldsOf(policies: Partial<Record<PolicySlot, PolicyRefPath | null>>, prefix: string): Partial<Record<PolicySlot, NamedPolicy>> {
  const out: Partial<Record<PolicySlot, NamedPolicy>> = {};
  for (const slot of ['securityPolicy', 'edgeSecurityPolicy'] as const) {
    const ref = policies[slot];
    if (ref !== undefined && ref !== null) out[slot] = { ref, field: `${prefix}${slot}`, given: ref.text };
  }
  return out;
}
