/**
 * The generic registry: get, list, create, update (replace and patch), delete and
 * deletecollection for every resource, written once (the Kubernetes `genericregistry.Store`
 * idea). Resources plug in through their strategy and view; the store revision is the
 * resourceVersion. Writes run inside one store transaction, so checks and the write are atomic.
 */
import type { Clock } from '../../../lib/clock.ts';
import type { IdSource } from '../../../lib/ids.ts';
import type { UserInfo } from '../cluster-auth.ts';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation, AdmissionOutcome } from '../admission/attributes.ts';
import { ConflictError, type Store, type StoredRecord, type Transaction } from '../../../store/index.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { EncodedObjects } from './encoded-objects.ts';
import { GoStructEncoder } from './go-structs.ts';
import type { FieldSelector } from './field-selector.ts';
import type { LabelSelector } from './label-selector.ts';
import { fieldsOf, recordUpdate, startingManagedFields } from './managed-fields.ts';
import { validateObjectMeta, validateObjectMetaUpdate, type KubeObject, type ManagedFieldsEntry, type ObjectMeta } from './object-meta.ts';
import { finalizersForDeletion, type Propagation } from './deletion-propagation.ts';
import { listAtRevision, RevisionCompactedError, type SnapshotPage } from './snapshot.ts';
import { goQuote, uint64Problem } from './query-values.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbiddenError,
  invalidObject,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  StatusError,
  tooLargeResourceVersion,
  type GroupResource,
} from './status.ts';
import { apiVersionOf, type AnyView, type RequestInfo } from './strategy.ts';

/** RequestScope is where a request points: the view, the group and apiVersion as the client spelled them, the namespace. */
export interface RequestScope {
  readonly view: AnyView;
  /** The group as spelled in the URL (messages and apiVersion answer in the client's spelling). */
  readonly group: string;
  /** The namespace from the URL; undefined for cluster-scoped resources and all-namespace lists. */
  readonly namespace: string | undefined;
  /** The user a client's request acts for; undefined for the server's own writes (bootstrap policy, controllers), which no hook restricts. */
  readonly requester?: UserInfo;
  /** Where admission's warnings and audit annotations for this request go (a client's write); admission runs only for a requester. */
  readonly admission?: AdmissionOutcome;
}

/** WriteOptions are the query options every write shares. */
export interface WriteOptions {
  readonly dryRun: boolean;
  readonly fieldManager: string;
  /** managedFields, when given, replaces the Update bookkeeping (server-side apply computes its own entries). */
  readonly managedFields?: () => ManagedFieldsEntry[];
}

/** ListQuery is a parsed list request (validated against the ListOptions rules already). */
export interface ListQuery {
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  readonly limit: number | undefined;
  readonly continueToken: string | undefined;
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: 'Exact' | 'NotOlderThan' | undefined;
}

/** ListResult is one page of a list. */
export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continue: string | undefined;
  readonly remainingItemCount: number | undefined;
}

/** DeleteOptionsBody is the parsed DeleteOptions body. */
export interface DeleteRequest {
  /** DeleteOptions' gracePeriodSeconds, when given (only kinds with graceful deletion read it). */
  readonly gracePeriodSeconds?: number;
  readonly dryRun: boolean;
  readonly preconditions: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
  /** What becomes of the dependents (absent: the object's finalizers, then the kind's default, decide). */
  readonly propagation?: Propagation;
}

/** DeleteOutcome is what a delete answers: a Status (gone at once) or the object (kept by finalizers). */
export type DeleteOutcome = { readonly kind: 'gone'; readonly object: KubeObject } | { readonly kind: 'pending'; readonly object: KubeObject };

/** RegistryHooks let a family add cross-resource rules: namespace existence, cascades, protected names. */
export interface RegistryHooks {
  /** namespaceExists is checked before a namespaced object is created. */
  namespaceExists(tx: Transaction, namespace: string): Promise<boolean>;
  /** beforeDelete may forbid a deletion (returns the reason). */
  beforeDelete(view: AnyView, object: KubeObject): string | undefined;
  /** afterDelete runs in the deleting transaction (e.g. a namespace removes its events). */
  afterDelete(tx: Transaction, view: AnyView, object: KubeObject): Promise<void>;
  /**
   * deleteInstead may keep an object a DELETE reaches, answering the state to store instead
   * (a namespace moves to Terminating while its content goes); undefined deletes as usual. It may throw.
   */
  deleteInstead?(tx: Transaction, view: AnyView, object: KubeObject, now: number, dryRun: boolean): Promise<KubeObject | undefined>;
  /** namespaceTerminating is checked after namespaceExists on create: content may not be created in a namespace being deleted. */
  namespaceTerminating?(tx: Transaction, namespace: string): Promise<boolean>;
  /**
   * gracePeriodSeconds is the grace a DELETE of `object` gets (the strategy's CheckGracefulDelete):
   * above zero the object is marked with `deletionTimestamp` = now + grace and kept until its kubelet
   * removes it; zero or undefined deletes as usual.
   */
  gracePeriodSeconds?(view: AnyView, object: KubeObject, requested: number | undefined): number | undefined;
  /** beforeWrite may refuse a validated create (old undefined) or update by throwing (e.g. RBAC escalation prevention). */
  beforeWrite?(tx: Transaction, scope: RequestScope, object: KubeObject, old: KubeObject | undefined): Promise<void>;
  /**
   * admission is the chain every client write passes (mutating, then the strategy's validation,
   * then validating, then storage); its async steps run outside the store transaction, which then
   * stores only if the object did not change meanwhile (else the write is retried, as the
   * apiserver's GuaranteedUpdate does).
   */
  readonly admission?: AdmissionChain;
}

/** MAX_ADMITTED_ATTEMPTS bounds the retries of an admitted update or delete whose object changed while admission ran. */
const MAX_ADMITTED_ATTEMPTS = 5;

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_ATTEMPTS = 8;

/** namespaceTerminating is the namespace lifecycle admission's 403 for content created in a namespace being deleted (kubernetes-breadth §4). */
function namespaceTerminating(gr: GroupResource, name: string, namespace: string): StatusError {
  const error = forbiddenError(gr, name === '' ? 'Unknown' : name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  return new StatusError(error.httpStatus, error.reason, error.message, {
    ...error.details,
    causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
  });
}

/**
 * gracefullyDeleted is `object` marked for deletion `grace` seconds from `now` (rest.BeforeDelete's
 * graceful path); undefined when it is already due sooner (a second DELETE only shortens the grace).
 */
function gracefullyDeleted(object: KubeObject, grace: number, now: number): KubeObject | undefined {
  const due = now + grace * 1000;
  const current = object.metadata.deletionTimestamp;
  if (current !== undefined && !(due < Date.parse(current))) return undefined;
  return { ...object, metadata: { ...object.metadata, deletionTimestamp: formatTime(due), deletionGracePeriodSeconds: grace } };
}

/** formatTime renders a millisecond instant as a Kubernetes `Time` (RFC 3339, seconds). */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  // A write stamps several times within one second (creation, managedFields, the Event's own).
  if (second !== lastFormatted.second) lastFormatted = { second, text: new Date(second * 1000).toISOString().replace('.000Z', 'Z') };
  return lastFormatted.text;
}

let lastFormatted = { second: Number.NaN, text: '' };

/** viewNumbers tell views apart in cache keys (a view object lives as long as it is served). */
const viewNumbers = new WeakMap<AnyView, number>();
let nextViewNumber = 0;

/** viewNumber is a view's number, given on first use. */
function viewNumber(view: AnyView): number {
  let number = viewNumbers.get(view);
  if (number === undefined) {
    number = nextViewNumber++;
    viewNumbers.set(view, number);
  }
  return number;
}

/** GenericRegistry serves every resource of the cluster family from one store. */
export class GenericRegistry {
  readonly #encoded = new EncodedObjects();

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly ids: IdSource,
    readonly hooks: RegistryHooks,
    /** How objects of Go types are written (members Go always writes, empty ones it leaves out); objects of other types are written as stored. */
    readonly goStructs: GoStructEncoder = new GoStructEncoder(() => ({})),
  ) {}

  /** groupResource names the resource in messages, in the request's spelling. */
  groupResource(scope: RequestScope): GroupResource {
    return { group: scope.group, resource: scope.view.resource };
  }

  /** keyOf is the store key of one object: `ns/name` or `name`. */
  keyOf(scope: RequestScope, namespace: string | undefined, name: string): string {
    return scope.view.strategy.namespaced ? `${namespace ?? ''}/${name}` : name;
  }

  /** present turns a stored record into the view's wire object, with apiVersion, kind and resourceVersion. */
  present(scope: RequestScope, record: StoredRecord, options: { readonly typeMeta: boolean } = { typeMeta: true }): KubeObject {
    const external = scope.view.toExternal(record.value as KubeObject);
    const metadata = orderMeta({ ...external.metadata, resourceVersion: String(record.revision) });
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = external;
    if (!options.typeMeta) return this.#asGoWrites(scope.view, { metadata, ...rest });
    const apiVersion = apiVersionOf(scope.view.responseKind ?? { group: scope.group, version: scope.view.version });
    return this.#asGoWrites(scope.view, { kind: scope.view.kind, apiVersion, metadata, ...rest });
  }

  /** wireForm is a stored object as the view writes it (Go's members included), for comparing and tracking fields as the apiserver sees them. */
  wireForm(view: AnyView, object: KubeObject): KubeObject {
    return this.#asGoWrites(view, view.toExternal(object));
  }

  /** asGoWrites applies Go's encoding to the objects of typed views; a view that decodes unstructured JSON (custom resources) writes them as stored. */
  #asGoWrites(view: AnyView, object: KubeObject): KubeObject {
    return view.decode === undefined ? this.goStructs.encode(view.schemaName, object) : object;
  }

  /**
   * presentJson is `present` serialised, kept with the record for the next read of the same
   * revision through the same view (a CRD's views are rebuilt when it changes, and read the same
   * record differently: new defaults).
   */
  presentJson(scope: RequestScope, record: StoredRecord): string {
    const { view } = scope;
    return this.#encoded.encoded(record, `${viewNumber(view)}/${scope.group}`, () => JSON.stringify(this.present(scope, record)));
  }

  /** read reads one object's record; a resourceVersion ahead of the store waits briefly, then is the real 504. */
  async read(scope: RequestScope, name: string, resourceVersion: string | undefined): Promise<StoredRecord> {
    if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== '0') await this.waitForRevision(parseResourceVersion(resourceVersion));
    const record = await this.store.get(scope.view.storeKind, this.keyOf(scope, scope.namespace, name));
    if (record === undefined) throw notFound(this.groupResource(scope), name);
    return record;
  }

  /** waitForRevision holds a read until the store reaches `revision`, up to a short bound (the real server's "too large" wait). */
  async waitForRevision(revision: bigint): Promise<number> {
    let current = await this.store.currentRevision();
    if (revision <= BigInt(current)) return current;
    // The store commits in-process, so a short wait covers a write already on its way.
    const deadline = this.clock.now() + 3000;
    while (this.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await this.store.currentRevision();
      if (revision <= BigInt(current)) return current;
    }
    throw tooLargeResourceVersion(revision, current);
  }

  /** list serves one page with the real resourceVersion semantics (see the cluster reference §3). */
  async list(scope: RequestScope, query: ListQuery): Promise<ListResult> {
    const { view } = scope;
    const prefix = view.strategy.namespaced && scope.namespace !== undefined ? `${scope.namespace}/` : '';
    let revision: number;
    let after: string | undefined;
    let inconsistent = false;
    if (query.continueToken !== undefined) {
      if (query.resourceVersion !== undefined && query.resourceVersion !== '' && query.resourceVersion !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      const point = decodeContinue(query.continueToken);
      after = point.after;
      if (point.revision === -1) {
        inconsistent = true;
        revision = await this.store.currentRevision();
      } else {
        revision = point.revision;
      }
    } else if (query.resourceVersion !== undefined && query.resourceVersion !== '' && query.resourceVersion !== '0') {
      const requested = parseResourceVersion(query.resourceVersion);
      const exact = query.resourceVersionMatch === 'Exact' || (query.resourceVersionMatch === undefined && query.limit !== undefined);
      const current = await this.waitForRevision(requested);
      // The wait returns only once the store has reached `requested`, so it is a safe integer here.
      revision = exact ? Number(requested) : current;
    } else {
      revision = await this.store.currentRevision();
    }
    const filter = (record: StoredRecord): boolean => {
      const object = record.value as KubeObject;
      if (!query.labelSelector.empty && !query.labelSelector.matches(object.metadata.labels)) return false;
      if (query.fieldSelector.empty) return true;
      return query.fieldSelector.matches(view.selectableFields(object));
    };
    let page: SnapshotPage;
    try {
      page = await listAtRevision(this.store, view.storeKind, {
        prefix,
        ...(after === undefined ? {} : { after }),
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        revision,
        filter,
      });
    } catch (error) {
      if (!(error instanceof RevisionCompactedError)) throw error;
      if (query.continueToken !== undefined) {
        const fresh = after === undefined ? undefined : encodeContinue(-1, after);
        throw expired(
          fresh === undefined
            ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'
            : 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          fresh,
        );
      }
      throw expired('The resourceVersion for the provided list is too old.');
    }
    const typeMeta = view.typedListItems === true;
    const items = page.records.map((record) => this.present(scope, record, { typeMeta }));
    // remainingItemCount is optional in the API; counting the rest would make every page O(n).
    const continueToken =
      page.more && page.records.length > 0
        ? encodeContinue(inconsistent ? -1 : revision, page.records[page.records.length - 1]!.key.slice(prefix.length))
        : undefined;
    return { items, resourceVersion: String(revision), continue: continueToken, remainingItemCount: undefined };
  }

  /** create stores a new object (201), filling the system metadata and running the strategy hooks. */
  async create(scope: RequestScope, body: KubeObject, options: WriteOptions): Promise<{ object: KubeObject; warnings: string[] }> {
    const { view } = scope;
    const strategy = view.strategy;
    const now = this.clock.now();
    const info: RequestInfo = { view, now };
    const metaIn = body.metadata ?? {};
    this.checkNamespace(scope, metaIn);
    if (metaIn.resourceVersion !== undefined && metaIn.resourceVersion !== '') {
      throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
    }
    let input = body;
    const admission = this.#admissionOf(scope);
    if (admission !== undefined) {
      const namespace = this.#admissionNamespace(scope, metaIn.namespace, metaIn.name ?? '');
      // NamespaceLifecycle leads admission: a missing namespace is the 404 before any policy or webhook.
      if (strategy.namespaced && !(await this.store.transact((tx) => this.hooks.namespaceExists(tx, namespace)))) {
        throw notFound({ group: '', resource: 'namespaces' }, namespace);
      }
      const attributes = this.#attributes(scope, 'CREATE', metaIn.name ?? '', namespace, this.#typed(scope, body), undefined, options, 'CreateOptions');
      if (admission.mutates()) input = (await admission.admit(attributes, scope.admission)) ?? body;
    }
    // `body` is this request's own freshly decoded object: a shallow copy (hooks replace top-level
    // fields, never mutate nested ones) keeps it intact for a retry with another generated name.
    for (let attempt = 0; ; attempt++) {
      const object = view.toInternal({ ...input });
      const meta: ObjectMeta = { ...object.metadata };
      if (strategy.namespaced) meta.namespace = scope.namespace ?? meta.namespace ?? '';
      else delete meta.namespace;
      if ((meta.name === undefined || meta.name === '') && meta.generateName !== undefined && meta.generateName !== '') {
        meta.name = this.generateName(meta.generateName);
      }
      meta.uid = this.uid();
      meta.creationTimestamp = formatTime(now);
      delete meta.resourceVersion;
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
      delete meta.generation;
      object.metadata = meta;
      strategy.prepareForCreate(object, info);
      const metadataErrors = () => validateObjectMeta(object.metadata, { namespaced: strategy.namespaced, nameRule: strategy.nameRule });
      // As upstream: the kind's ValidateObjectMeta first, then its own rules; a kind placing them itself gets the common check after.
      let errors = strategy.validatesObjectMeta === true ? strategy.validate(object, info) : [...metadataErrors(), ...strategy.validate(object, info)];
      if (errors.length === 0 && strategy.validatesObjectMeta === true) errors = metadataErrors();
      if (errors.length > 0) throw invalidObject(strategy.invalidKind, object.metadata.name ?? '', errors);
      const warnings = strategy.warnings(object, undefined);
      strategy.canonicalize(object);
      const external = view.toExternal(object);
      object.metadata.managedFields =
        options.managedFields?.() ??
        recordUpdate(
          startingManagedFields(object.metadata.managedFields, undefined),
          options.fieldManager,
          apiVersionOf(view),
          formatTime(now),
          { object: external, fields: fieldsOf(external, view.schemaName, view.schemas) },
          undefined,
        );
      const name = object.metadata.name!;
      if (admission !== undefined) {
        const namespace = this.#admissionNamespace(scope, object.metadata.namespace, name);
        const wire = this.#wire(scope, object);
        await admission.validate(this.#attributes(scope, 'CREATE', name, namespace, wire, undefined, options, 'CreateOptions'), scope.admission);
      }
      try {
        const record = await this.store.transact(async (tx) => {
          if (strategy.namespaced && !(await this.hooks.namespaceExists(tx, meta.namespace!))) {
            throw notFound({ group: '', resource: 'namespaces' }, meta.namespace!);
          }
          if (strategy.namespaced && (await this.hooks.namespaceTerminating?.(tx, meta.namespace!)) === true) {
            throw namespaceTerminating(this.groupResource(scope), name, meta.namespace!);
          }
          await this.hooks.beforeWrite?.(tx, scope, object, undefined);
          const key = this.keyOf(scope, meta.namespace, name);
          if (options.dryRun) {
            if ((await tx.get(view.storeKind, key)) !== undefined) throw alreadyExists(this.groupResource(scope), name);
            return undefined;
          }
          return tx.put(view.storeKind, key, object, { expectRevision: 0 });
        });
        if (record === undefined) {
          const presented = this.present(scope, { kind: view.storeKind, key: name, value: object, revision: 0, createRevision: 0 });
          delete presented.metadata.resourceVersion;
          return { object: presented, warnings };
        }
        return { object: this.present(scope, record), warnings };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const generated = (body.metadata?.name ?? '') === '' && (body.metadata?.generateName ?? '') !== '';
        if (generated && attempt + 1 < MAX_GENERATE_ATTEMPTS) continue;
        throw alreadyExists(this.groupResource(scope), name);
      }
    }
  }

  /**
   * update replaces an object with what `next` makes of the current one (PUT ignores it; PATCH
   * merges into it), inside one transaction. A missing object is created when the strategy
   * allows it and `next` accepts no current object.
   */
  async update(
    scope: RequestScope,
    name: string,
    next: (current: KubeObject | undefined) => KubeObject,
    options: WriteOptions & { readonly allowCreate: boolean },
  ): Promise<{ object: KubeObject; created: boolean; warnings: string[] }> {
    const { view } = scope;
    const strategy = view.strategy;
    const gr = this.groupResource(scope);
    const key = this.keyOf(scope, scope.namespace, name);
    const existing = await this.store.get(view.storeKind, key);
    if (existing === undefined) {
      if (!options.allowCreate || !strategy.allowCreateOnUpdate) throw notFound(gr, name);
      const body = next(undefined);
      const { resourceVersion: _drop, ...meta } = body.metadata ?? {};
      try {
        const created = await this.create(scope, { ...body, metadata: meta }, options);
        return { ...created, created: true };
      } catch (error) {
        // Someone created it meanwhile: fall through to the update path with the fresh state.
        if (!(error instanceof StatusError) || error.reason !== 'AlreadyExists') throw error;
      }
    }
    const now = this.clock.now();
    const info: RequestInfo = { view, now };
    const admission = this.#admissionOf(scope);
    if (admission === undefined) {
      let warnings: string[] = [];
      const outcome = await this.store.transact(async (tx) => {
        const old = await tx.get<KubeObject>(view.storeKind, key);
        if (old === undefined) throw notFound(gr, name);
        const body = next(this.present(scope, old));
        this.#checkUpdateBody(scope, name, old, body);
        const prepared = this.#prepareUpdate(scope, name, old.value, body, options, info);
        warnings = prepared.warnings;
        return this.#commitUpdate(tx, scope, key, old, prepared.object, options);
      });
      return { object: this.present(scope, outcome.record), created: false, warnings };
    }
    // Admitted: mutating and validating admission run outside the transaction, which stores only
    // over the object they saw; a change meanwhile runs the update again on the new state.
    for (let attempt = 1; ; attempt++) {
      const old = await this.store.get<KubeObject>(view.storeKind, key);
      if (old === undefined) throw notFound(gr, name);
      const oldWire = this.present(scope, old);
      let body = next(oldWire);
      this.#checkUpdateBody(scope, name, old, body);
      const namespace = this.#admissionNamespace(scope, oldWire.metadata.namespace, name);
      const mutated = !admission.mutates()
        ? undefined
        : await admission.admit(
            this.#attributes(scope, 'UPDATE', name, namespace, this.#typed(scope, body), oldWire, options, 'UpdateOptions'),
            scope.admission,
          );
      if (mutated !== undefined) body = mutated;
      const prepared = this.#prepareUpdate(scope, name, old.value, body, options, info);
      const wire = this.#wire(scope, prepared.object);
      await admission.validate(this.#attributes(scope, 'UPDATE', name, namespace, wire, oldWire, options, 'UpdateOptions'), scope.admission);
      const outcome = await this.store.transact(async (tx) => {
        const current = await tx.get<KubeObject>(view.storeKind, key);
        if (current === undefined) throw notFound(gr, name);
        if (current.revision !== old.revision) return undefined;
        return this.#commitUpdate(tx, scope, key, current, prepared.object, options);
      });
      if (outcome !== undefined) return { object: this.present(scope, outcome.record), created: false, warnings: prepared.warnings };
      if (attempt >= MAX_ADMITTED_ATTEMPTS) throw conflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
    }
  }

  /** checkUpdateBody holds an update's body to its URL and to the stored object's resourceVersion. */
  #checkUpdateBody(scope: RequestScope, name: string, old: StoredRecord<KubeObject>, body: KubeObject): void {
    const bodyMeta = body.metadata ?? {};
    this.checkNamespace(scope, bodyMeta);
    if ((bodyMeta.name ?? '') !== name) throw badRequest(`the name of the object (${bodyMeta.name ?? ''}) does not match the name on the URL (${name})`);
    const requested = bodyMeta.resourceVersion;
    if (requested === undefined || requested === '') {
      if (!scope.view.strategy.allowUnconditionalUpdate)
        throw invalidObject(scope.view.strategy.invalidKind, name, [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', value: '', detail: 'must be specified for an update' },
        ]);
    } else if (parseResourceVersion(requested) !== BigInt(old.revision)) {
      throw conflict(this.groupResource(scope), name, OPTIMISTIC_LOCK_MESSAGE);
    }
  }

  /** prepareUpdate is BeforeUpdate: the object to store made of the body and the stored object (server-owned fields, validation, managedFields). */
  #prepareUpdate(
    scope: RequestScope,
    name: string,
    oldObject: KubeObject,
    body: KubeObject,
    options: WriteOptions,
    info: RequestInfo,
  ): { object: KubeObject; warnings: string[] } {
    const { view } = scope;
    const strategy = view.strategy;
    const now = info.now;
    // `next` hands over a freshly decoded object; a shallow copy is enough (see create).
    const object = view.toInternal({ ...body });
    const meta: ObjectMeta = { ...object.metadata };
    if (strategy.namespaced) meta.namespace = scope.namespace ?? oldObject.metadata.namespace ?? '';
    else delete meta.namespace;
    if (meta.uid === undefined || meta.uid === '') meta.uid = oldObject.metadata.uid!;
    meta.creationTimestamp = oldObject.metadata.creationTimestamp!;
    delete meta.resourceVersion;
    if (oldObject.metadata.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = oldObject.metadata.deletionTimestamp;
      meta.deletionGracePeriodSeconds = oldObject.metadata.deletionGracePeriodSeconds ?? 0;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    meta.managedFields = startingManagedFields(body.metadata?.managedFields, oldObject.metadata.managedFields);
    object.metadata = meta;
    strategy.prepareForUpdate(object, oldObject, info);
    // As rest.BeforeUpdate: the common metadata checks, then the kind's.
    const errors = [
      ...validateObjectMetaUpdate(object.metadata, oldObject.metadata, { namespaced: strategy.namespaced, nameRule: strategy.nameRule }),
      ...strategy.validateUpdate(object, oldObject, info),
    ];
    if (errors.length > 0) throw invalidObject(strategy.invalidKind, name, errors);
    const warnings = strategy.warnings(object, oldObject);
    strategy.canonicalize(object);
    // A subresource of another wire type (Scale) changes fields of its parent, tracked in the parent's form.
    // Both in the form Go writes them: members an answer added (`"status":{}`) are no change of the writer's.
    const tracked = view.parent ?? view;
    const externalNext = this.wireForm(tracked, object);
    const externalOld = this.wireForm(tracked, oldObject);
    object.metadata.managedFields =
      options.managedFields?.() ??
      recordUpdate(
        object.metadata.managedFields,
        options.fieldManager,
        apiVersionOf(tracked),
        formatTime(now),
        { object: externalNext, fields: fieldsOf(externalNext, tracked.schemaName, tracked.schemas) },
        { object: externalOld, fields: fieldsOf(externalOld, tracked.schemaName, tracked.schemas) },
      );
    return { object, warnings };
  }

  /** commitUpdate stores a prepared update over `old` in the transaction (or not, when nothing changed or it is a dry run). */
  async #commitUpdate(
    tx: Transaction,
    scope: RequestScope,
    key: string,
    old: StoredRecord<KubeObject>,
    object: KubeObject,
    options: WriteOptions,
  ): Promise<{ record: StoredRecord; deleted: boolean }> {
    const { view } = scope;
    const tracked = view.parent ?? view;
    const oldObject = old.value;
    await this.hooks.beforeWrite?.(tx, scope, object, oldObject);
    // Unchanged but for the manager's timestamp: the real server skips the write.
    if (sameIgnoringTimes(this.wireForm(tracked, object), this.wireForm(tracked, oldObject))) return { record: old, deleted: false };
    if (options.dryRun) return { record: { ...old, value: object }, deleted: false };
    // The last finalizer removed from an object being deleted: it goes now.
    if (object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).length === 0) {
      const removed = await tx.delete<KubeObject>(view.storeKind, key, { expectRevision: old.revision });
      await this.hooks.afterDelete(tx, view, object);
      return { record: { ...removed!, value: object }, deleted: true };
    }
    return { record: await tx.put(view.storeKind, key, object, { expectRevision: old.revision }), deleted: false };
  }

  /** delete removes an object, or marks it for deletion while finalizers remain. */
  async delete(scope: RequestScope, name: string, request: DeleteRequest): Promise<DeleteOutcome> {
    const { view } = scope;
    const gr = this.groupResource(scope);
    const key = this.keyOf(scope, scope.namespace, name);
    const now = this.clock.now();
    const admission = this.#admissionOf(scope);
    if (admission === undefined) {
      return this.store.transact(async (tx) => {
        const old = await tx.get<KubeObject>(view.storeKind, key);
        if (old === undefined) throw notFound(gr, name);
        return this.deleteRecord(tx, scope, old, request, now);
      });
    }
    for (let attempt = 1; ; attempt++) {
      const old = await this.store.get<KubeObject>(view.storeKind, key);
      if (old === undefined) throw notFound(gr, name);
      await this.#admitDelete(admission, scope, name, old, request.dryRun);
      const outcome = await this.store.transact(async (tx) => {
        const current = await tx.get<KubeObject>(view.storeKind, key);
        if (current === undefined) throw notFound(gr, name);
        if (current.revision !== old.revision) return undefined;
        return this.deleteRecord(tx, scope, current, request, now);
      });
      if (outcome !== undefined) return outcome;
      if (attempt >= MAX_ADMITTED_ATTEMPTS) throw conflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
    }
  }

  /** admitDelete runs both admission phases for a DELETE: no object, the stored one as oldObject. */
  async #admitDelete(admission: AdmissionChain, scope: RequestScope, name: string, old: StoredRecord<KubeObject>, dryRun: boolean): Promise<void> {
    const oldWire = this.present(scope, old);
    const namespace = this.#admissionNamespace(scope, oldWire.metadata.namespace, old.value.metadata.name ?? name);
    const attributes = this.#attributes(scope, 'DELETE', name, namespace, undefined, oldWire, { dryRun, fieldManager: '' }, 'DeleteOptions');
    // A mutating webhook's patch on a DELETE is refused by the webhook plugin itself: the result is not used.
    if (admission.mutates()) await admission.admit(attributes, scope.admission);
    await admission.validate(attributes, scope.admission);
  }

  /** admissionOf is the chain a request passes: client writes only (the server's own writes are not admitted), and only when something is configured. */
  #admissionOf(scope: RequestScope): AdmissionChain | undefined {
    const chain = this.hooks.admission;
    if (chain === undefined || scope.requester === undefined || !chain.active()) return undefined;
    return chain;
  }

  /** admissionNamespace is the request's namespace as admission sees it: a Namespace's own name for namespaces, `''` for other cluster-scoped objects. */
  #admissionNamespace(scope: RequestScope, objectNamespace: string | undefined, name: string): string {
    const { view } = scope;
    if (view.strategy.namespaced) return scope.namespace ?? objectNamespace ?? '';
    return view.group === '' && view.resource === 'namespaces' ? name : '';
  }

  /** typed is a request body with the view's apiVersion and kind (as the apiserver's decoded object carries them). */
  #typed(scope: RequestScope, body: KubeObject): KubeObject {
    const { view } = scope;
    const apiVersion = apiVersionOf(view.responseKind ?? { group: view.group, version: view.version });
    return { ...body, apiVersion, kind: view.responseKind?.kind ?? view.kind };
  }

  /** wire is an object about to be stored in the wire form admission sees (no resourceVersion yet on a create). */
  #wire(scope: RequestScope, object: KubeObject): KubeObject {
    const presented = this.present(scope, { kind: scope.view.storeKind, key: '', value: object, revision: 0, createRevision: 0 });
    if (presented.metadata.resourceVersion === '0') delete presented.metadata.resourceVersion;
    return presented;
  }

  /** attributes are one admission request's attributes; `options` becomes the review's options object. */
  #attributes(
    scope: RequestScope,
    operation: AdmissionOperation,
    name: string,
    namespace: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    options: WriteOptions | { readonly dryRun: boolean; readonly fieldManager: string },
    optionsKind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions',
  ): AdmissionAttributes {
    const reviewOptions: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
    if (options.dryRun) reviewOptions['dryRun'] = ['All'];
    if (optionsKind !== 'DeleteOptions' && options.fieldManager !== '') reviewOptions['fieldManager'] = options.fieldManager;
    return { operation, view: scope.view, name, namespace, object, oldObject, dryRun: options.dryRun, options: reviewOptions, userInfo: scope.requester! };
  }

  private async deleteRecord(tx: Transaction, scope: RequestScope, old: StoredRecord<KubeObject>, request: DeleteRequest, now: number): Promise<DeleteOutcome> {
    const { view } = scope;
    const gr = this.groupResource(scope);
    const name = old.value.metadata.name ?? '';
    const pre = request.preconditions;
    if (pre?.uid !== undefined && pre.uid !== old.value.metadata.uid) {
      throw conflict(gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.value.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== String(old.revision)) {
      throw conflict(gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.revision}`);
    }
    const reason = this.hooks.beforeDelete(view, old.value);
    if (reason !== undefined) throw forbiddenError(gr, name, reason);
    const grace = this.hooks.gracePeriodSeconds?.(view, old.value, request.gracePeriodSeconds) ?? 0;
    if (grace > 0) {
      const marked = gracefullyDeleted(old.value, grace, now);
      if (marked === undefined) return { kind: 'pending', object: this.present(scope, old) };
      if (request.dryRun) return { kind: 'pending', object: this.present(scope, { ...old, value: marked }) };
      return { kind: 'pending', object: this.present(scope, await tx.put(view.storeKind, old.key, marked, { expectRevision: old.revision })) };
    }
    const instead = await this.hooks.deleteInstead?.(tx, view, old.value, now, request.dryRun);
    if (instead !== undefined) {
      if (request.dryRun) return { kind: 'pending', object: this.present(scope, { ...old, value: instead }) };
      return { kind: 'pending', object: this.present(scope, await tx.put(view.storeKind, old.key, instead, { expectRevision: old.revision })) };
    }
    // The propagation adds or removes the garbage collector's finalizers (also on an object already being deleted).
    const finalizers = old.value.metadata.finalizers ?? [];
    const propagated = finalizersForDeletion(view, finalizers, request.propagation ?? {});
    if ((propagated ?? finalizers).length > 0) {
      if (old.value.metadata.deletionTimestamp !== undefined && propagated === undefined) return { kind: 'pending', object: this.present(scope, old) };
      const meta = old.value.metadata;
      const marked: KubeObject = {
        ...old.value,
        metadata: {
          ...meta,
          ...(propagated === undefined ? {} : { finalizers: propagated }),
          deletionTimestamp: meta.deletionTimestamp ?? formatTime(now),
          deletionGracePeriodSeconds: meta.deletionGracePeriodSeconds ?? 0,
        },
      };
      if (request.dryRun) return { kind: 'pending', object: this.present(scope, { ...old, value: marked }) };
      const record = await tx.put(view.storeKind, old.key, marked, { expectRevision: old.revision });
      return { kind: 'pending', object: this.present(scope, record) };
    }
    if (request.dryRun) return { kind: 'gone', object: this.present(scope, old) };
    const removed = await tx.delete<KubeObject>(view.storeKind, old.key, { expectRevision: old.revision });
    await this.hooks.afterDelete(tx, view, old.value);
    return { kind: 'gone', object: this.present(scope, removed ?? old) };
  }

  /** deleteCollection deletes every selected object and answers the list of what was deleted. */
  async deleteCollection(scope: RequestScope, query: ListQuery, request: DeleteRequest): Promise<ListResult> {
    const listed = await this.list(scope, query);
    const now = this.clock.now();
    const deleted: KubeObject[] = [];
    for (const item of listed.items) {
      const namespaced = scope.view.strategy.namespaced;
      const key = this.keyOf(scope, namespaced ? item.metadata.namespace : undefined, item.metadata.name ?? '');
      const itemScope = { ...scope, namespace: namespaced ? item.metadata.namespace : undefined };
      const admission = this.#admissionOf(scope);
      let admitted: StoredRecord<KubeObject> | undefined;
      if (admission !== undefined) {
        admitted = await this.store.get<KubeObject>(scope.view.storeKind, key);
        if (admitted === undefined) continue;
        // DELETECOLLECTION admits each item with the collection's (empty) name.
        await this.#admitDelete(admission, itemScope, '', admitted, request.dryRun);
      }
      const outcome = await this.store.transact(async (tx) => {
        const old = await tx.get<KubeObject>(scope.view.storeKind, key);
        if (old === undefined) return undefined;
        if (admitted !== undefined && old.revision !== admitted.revision) return undefined;
        return this.deleteRecord(tx, itemScope, old, request, now);
      });
      if (outcome !== undefined) {
        const { kind: _k, apiVersion: _a, ...rest } = outcome.object;
        deleted.push(rest as KubeObject);
      }
    }
    return { items: deleted, resourceVersion: String(await this.store.currentRevision()), continue: undefined, remainingItemCount: undefined };
  }

  private checkNamespace(scope: RequestScope, meta: ObjectMeta): void {
    if (!scope.view.strategy.namespaced || scope.namespace === undefined) return;
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== scope.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  private generateName(base: string): string {
    const bytes = this.ids.bytes(5);
    let suffix = '';
    for (const byte of bytes) suffix += GENERATE_ALPHABET[byte % GENERATE_ALPHABET.length];
    return `${base.slice(0, 58)}${suffix}`;
  }

  private uid(): string {
    // bytes() hands out a Buffer of its own: set the version and variant bits in place.
    const b = this.ids.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

/**
 * parseResourceVersion reads a resourceVersion query or field as the apiserver's versioner does
 * (strconv.ParseUint(value, 10, 64)): anything else is the real 400 at once, a value past uint64
 * included. A BigInt, so a valid version past 2^53 keeps every digit.
 */
export function parseResourceVersion(value: string): bigint {
  const problem = uint64Problem(value);
  if (problem !== undefined) {
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${goQuote(value)}: strconv.ParseUint: parsing ${goQuote(value)}: ${problem}`);
  }
  return BigInt(value);
}

const META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** orderMeta writes metadata keys in the order the real server serialises them. */
export function orderMeta(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = {};
  for (const key of META_ORDER) {
    const value = (meta as Record<string, unknown>)[key];
    // Go's omitempty: an empty managedFields (all entries reset) is not written.
    if (value !== undefined && value !== '' && !(key === 'managedFields' && Array.isArray(value) && value.length === 0)) out[key] = value;
  }
  for (const [key, value] of Object.entries(meta)) if (!(key in out) && value !== undefined && !META_ORDER.includes(key)) out[key] = value;
  return out as ObjectMeta;
}

function sameIgnoringTimes(a: KubeObject, b: KubeObject): boolean {
  const strip = (object: KubeObject): string =>
    stableJson({
      ...object,
      metadata: {
        ...object.metadata,
        resourceVersion: undefined,
        managedFields: object.metadata.managedFields?.map((entry) => ({ ...entry, time: undefined })),
      },
    });
  return strip(a) === strip(b);
}

/** stableJson serialises with object keys sorted, so key order does not make two equal objects differ. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}
