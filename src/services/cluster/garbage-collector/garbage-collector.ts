/**
 * kube-controller-manager's garbage collector (upstream `pkg/controller/garbagecollector`), on
 * the store's change feed: every object of every served kind (custom resources included; Events
 * ignored, as upstream's DefaultIgnoredResources) is in the owner graph; a dependent whose owners
 * are all gone (looked up by name in its namespace, or cluster scope for a cluster-scoped owner
 * kind, and compared by uid: a recreated owner is another owner) or deleting their dependents in
 * the foreground is deleted; one with a live owner keeps it and loses the others' references.
 * An owner deleted in the foreground (`foregroundDeletion`) goes once its dependents that
 * block it are gone; one deleted with `orphan` first has its references removed from its
 * dependents. It runs as a singleton among replicas, and on start (a new leader, a restart, a
 * reset) relists everything and checks what the feed would have told it.
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { Change, Store } from '../../../store/index.ts';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type PropagationPolicy } from '../apimachinery/deletion-propagation.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import { type AnyView, apiVersionOf } from '../apimachinery/strategy.ts';
import { FeedController } from '../feed-controller.ts';
import type { EventRecorder } from '../event-recorder.ts';
import { EVENT_STORE_KIND } from '../resources/events.ts';
import { type ObservedObject, type OwnerReference, OwnerGraph, observedObjectOf, ownerReferencesOf, type Work } from './owner-graph.ts';

/** GARBAGE_COLLECTOR_MANAGER is the field manager of the collector's writes (the controller-manager's). */
export const GARBAGE_COLLECTOR_MANAGER = 'kube-controller-manager';

/** GARBAGE_COLLECTOR_COMPONENT is the source of the collector's events. */
export const GARBAGE_COLLECTOR_COMPONENT = 'garbage-collector-controller';

/** Job is one unit of the collector's work. */
type Job = `delete:${string}` | `orphan:${string}`;

/** Changed is thrown out of an update when the object is no longer the one the collector decided about. */
class Changed extends Error {}

/** ownerCoordinates writes a reference as upstream's objectReference.String() does. */
function ownerCoordinates(ref: OwnerReference, namespace: string): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** GarbageCollector deletes dependents whose owners are gone, and finishes foreground and orphan deletions. */
export class GarbageCollector extends FeedController<Job> {
  readonly graph = new OwnerGraph();
  /** The main view of each store kind followed, and the view of each `group/Kind` an owner reference may name. */
  #byStoreKind = new Map<string, AnyView>();
  #byKind = new Map<string, AnyView>();
  /** Changes that arrive while a relist runs wait for it, then apply in order (so the graph ends at the latest state). */
  #buffered: Change[] | undefined;
  /** `namespace/uid` of owners seen deleted (bounded), whose references dangle whatever their kind. */
  readonly #absentOwners = new Set<string>();
  /** Dependent/owner pairs already reported in an OwnerRefInvalidNamespace event. */
  readonly #reported = new Set<string>();

  constructor(
    store: Store,
    readonly registry: GenericRegistry,
    /** views are every view served now (the fixed ones and the custom resources'). */
    readonly views: () => readonly AnyView[],
    readonly groups: Vocabulary,
    readonly events: EventRecorder,
  ) {
    super(store);
    this.#indexViews();
  }

  /** viewsChanged takes the served custom resources as they are now; kinds newly served are listed. */
  viewsChanged(): void {
    const known = new Set(this.#byStoreKind.keys());
    this.#indexViews();
    const added = [...this.#byStoreKind.keys()].filter((storeKind) => !known.has(storeKind));
    if (added.length > 0 && this.following) {
      void this.#relist(added).catch((error: unknown) => (this.queue.lastError = error));
    }
  }

  #indexViews(): void {
    const byStoreKind = new Map<string, AnyView>();
    const byKind = new Map<string, AnyView>();
    for (const view of this.views()) {
      if (view.subresource !== undefined || view.storeKind === EVENT_STORE_KIND) continue;
      if (!byStoreKind.has(view.storeKind)) byStoreKind.set(view.storeKind, view);
      const kindKey = `${view.group}/${view.kind}`;
      if (!byKind.has(kindKey)) byKind.set(kindKey, view);
    }
    this.#byStoreKind = byStoreKind;
    this.#byKind = byKind;
  }

  protected handle(job: Job): Promise<void> {
    return this.#handle(job);
  }

  protected override forget(): void {
    this.graph.clear();
    // Changes that arrive while the relist runs wait for it.
    this.#buffered = [];
  }

  protected observe(change: Change): void {
    // A deletion counts even for a kind no longer served (a CRD's instances removed as it goes): its node leaves the graph.
    if (!this.#byStoreKind.has(change.kind) && change.type !== 'deleted') return;
    if (this.#buffered !== undefined) this.#buffered.push(change);
    else this.#apply(change);
  }

  protected relist(): Promise<void> {
    return this.#relist([...this.#byStoreKind.keys()]);
  }

  /** relist observes every object of `storeKinds`, then checks every object whose owners need it. */
  async #relist(storeKinds: readonly string[]): Promise<void> {
    this.#buffered ??= [];
    try {
      const observed: ObservedObject[] = [];
      for (const storeKind of storeKinds) {
        const view = this.#byStoreKind.get(storeKind);
        if (view === undefined) continue;
        for (const record of await this.store.list<KubeObject>(storeKind)) {
          const object = observedObjectOf(storeKind, record.key, record.value, view.strategy.namespaced);
          if (object === undefined) continue;
          this.graph.observe(object);
          observed.push(object);
        }
      }
      // What the feed would have said while no collector ran: owners gone, foreground and orphan deletions under way.
      for (const object of observed) {
        if (object.owners.length > 0 && this.graph.needsAttention(object)) this.queue.add(`delete:${object.uid}`);
        if (object.deletingDependents) this.queue.add(`delete:${object.uid}`);
        if (object.orphaning) this.queue.add(`orphan:${object.uid}`);
      }
    } finally {
      const buffered = this.#buffered;
      this.#buffered = undefined;
      for (const change of buffered) this.#apply(change);
    }
  }

  #apply(change: Change): void {
    const value = change.value as KubeObject;
    const uid = value?.metadata?.uid;
    if (uid === undefined) return;
    if (change.type === 'deleted') {
      // Only the object observed under this key (another kind's record may carry a uid too).
      const observed = this.graph.get(uid);
      if (observed === undefined || observed.key !== change.key || observed.storeKind !== change.kind) return;
      const work = this.graph.remove(uid);
      // Seen gone: its dependents' references dangle even once its kind is no longer served (upstream's absentOwnerCache).
      if (this.graph.dependentsOf(uid).length > 0) this.#absent(`${observed.namespace ?? ''}/${uid}`);
      this.#enqueue(work);
      return;
    }
    const view = this.#byStoreKind.get(change.kind);
    if (view === undefined) return;
    const object = observedObjectOf(change.kind, change.key, value, view.strategy.namespaced);
    if (object !== undefined) this.#enqueue(this.graph.observe(object));
  }

  #absent(key: string): void {
    if (this.#absentOwners.size >= 10_000) this.#absentOwners.clear();
    this.#absentOwners.add(key);
  }

  #enqueue(work: Work): void {
    for (const uid of work.attemptToDelete) this.queue.add(`delete:${uid}`);
    for (const uid of work.attemptToOrphan) this.queue.add(`orphan:${uid}`);
  }

  async #handle(job: Job): Promise<void> {
    if (this.stopped) return;
    const uid = job.slice(job.indexOf(':') + 1);
    if (job.startsWith('orphan:')) await this.#attemptToOrphan(uid);
    else await this.#attemptToDelete(uid);
  }

  #scopeOf(view: AnyView, namespace: string | undefined): RequestScope {
    return { view, group: view.group, namespace: view.strategy.namespaced ? namespace : undefined };
  }

  /** current reads an observed object as stored now; undefined when it is gone or its key holds another object. */
  async #current(object: ObservedObject): Promise<{ view: AnyView; value: KubeObject; revision: number } | undefined> {
    const view = this.#byStoreKind.get(object.storeKind);
    if (view === undefined) return undefined;
    const record = await this.store.get<KubeObject>(object.storeKind, object.key);
    if (record === undefined || record.value.metadata.uid !== object.uid) return undefined;
    return { view, value: record.value, revision: record.revision };
  }

  /** attemptToDelete is upstream's attemptToDeleteItem for one observed object. */
  async #attemptToDelete(uid: string): Promise<void> {
    const object = this.graph.get(uid);
    if (object === undefined) return;
    const current = await this.#current(object);
    if (current === undefined) return;
    const meta = current.value.metadata;
    const finalizers = meta.finalizers ?? [];
    const beingDeleted = meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
    if (beingDeleted && !finalizers.includes(FINALIZER_FOREGROUND)) return;
    if (beingDeleted) {
      // Deleting its dependents in the foreground: it goes once none blocks it.
      const blocking = this.graph.blockingDependentsOf(uid);
      if (blocking.length === 0) await this.#removeFinalizer(object, current.view, `delete:${uid}`, FINALIZER_FOREGROUND);
      else for (const dependent of blocking) this.queue.add(`delete:${dependent.uid}`);
      return;
    }
    const owners = ownerReferencesOf(current.value);
    if (owners.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of owners) {
      const state = await this.#classify(ref, object);
      if (state === 'unknown') return;
      if (state === 'solid') solid.push(ref);
      else if (state === 'dangling') dangling.push(ref);
      else waiting.push(ref);
    }
    if (solid.length > 0) {
      // A live owner keeps it; references to the absent and the foreground-deleting ones go.
      if (dangling.length + waiting.length > 0) {
        const gone = new Set([...dangling, ...waiting].map((ref) => ref.uid));
        await this.#updateReferences(object, current.view, `delete:${uid}`, (refs) => refs.filter((ref) => !gone.has(ref.uid)));
      }
      return;
    }
    const dependents = this.graph.dependentsOf(uid);
    if (waiting.length > 0 && dependents.length > 0) {
      // Its own dependents may block an owner waiting on it: delete it in the foreground too,
      // first unblocking its references when one of its dependents waits on it as well (a cycle).
      if (dependents.some((dependent) => dependent.deletingDependents)) {
        await this.#updateReferences(object, current.view, `delete:${uid}`, (refs) => refs.map(({ blockOwnerDeletion: _b, ...ref }) => ref));
      }
      await this.#delete(object, current.view, current.revision, 'Foreground');
      return;
    }
    const policy: PropagationPolicy = finalizers.includes(FINALIZER_ORPHAN)
      ? 'Orphan'
      : finalizers.includes(FINALIZER_FOREGROUND)
        ? 'Foreground'
        : 'Background';
    await this.#delete(object, current.view, current.revision, policy);
  }

  /** classify is upstream's isDangling plus the waiting check for one owner reference. */
  async #classify(ref: OwnerReference, dependent: ObservedObject): Promise<'solid' | 'dangling' | 'waiting' | 'unknown'> {
    // Keyed by the owner's namespace, so a cluster-scoped dependent of a namespaced owner is still never collected.
    if (this.#absentOwners.has(`/${ref.uid}`) || (dependent.namespace !== undefined && this.#absentOwners.has(`${dependent.namespace}/${ref.uid}`)))
      return 'dangling';
    const ownerView = this.#byKind.get(`${this.groups.canonical(groupOf(ref.apiVersion))}/${ref.kind}`);
    // No such kind served: a REST-mapping error upstream, retried; the dependent stays.
    if (ownerView === undefined) return 'unknown';
    // A cluster-scoped object cannot be owned by a namespaced one: never collected (namespacedOwnerOfClusterScopedObjectErr).
    if (dependent.namespace === undefined && ownerView.strategy.namespaced) {
      await this.#reportInvalidNamespace(dependent, ref);
      return 'unknown';
    }
    const key = ownerView.strategy.namespaced ? `${dependent.namespace}/${ref.name}` : ref.name;
    const record = await this.store.get<KubeObject>(ownerView.storeKind, key);
    if (record === undefined || record.value.metadata.uid !== ref.uid) {
      // The uid lives in another namespace: the reference can never resolve there (reportInvalidNamespaceOwnerRef).
      const elsewhere = this.graph.get(ref.uid);
      if (elsewhere?.namespace !== undefined && elsewhere.namespace !== dependent.namespace) await this.#reportInvalidNamespace(dependent, ref);
      return 'dangling';
    }
    const meta = record.value.metadata;
    if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null && (meta.finalizers ?? []).includes(FINALIZER_FOREGROUND)) return 'waiting';
    return 'solid';
  }

  async #reportInvalidNamespace(dependent: ObservedObject, ref: OwnerReference): Promise<void> {
    const owner = this.graph.get(ref.uid);
    if (owner === undefined || owner.namespace === undefined || owner.namespace === dependent.namespace) return;
    const pair = `${dependent.uid}/${ref.uid}`;
    if (this.#reported.has(pair)) return;
    this.#reported.add(pair);
    const view = this.#byStoreKind.get(dependent.storeKind);
    if (view === undefined) return;
    const namespace = dependent.namespace ?? '';
    await this.events.record(
      { kind: view.kind, apiVersion: apiVersionOf(view), ...(namespace === '' ? {} : { namespace }), name: dependent.name, uid: dependent.uid },
      'Warning',
      'OwnerRefInvalidNamespace',
      `ownerRef ${ownerCoordinates(ref, namespace)} does not exist in namespace ${JSON.stringify(namespace)}`,
    );
  }

  /** attemptToOrphan releases an owner's dependents (their references to it removed), then lets the owner go. */
  async #attemptToOrphan(uid: string): Promise<void> {
    const owner = this.graph.get(uid);
    if (owner === undefined) return;
    for (const dependent of this.graph.dependentsOf(uid)) {
      const view = this.#byStoreKind.get(dependent.storeKind);
      if (view !== undefined) await this.#updateReferences(dependent, view, `orphan:${uid}`, (refs) => refs.filter((ref) => ref.uid !== uid));
    }
    const view = this.#byStoreKind.get(owner.storeKind);
    if (view !== undefined) await this.#removeFinalizer(owner, view, `orphan:${uid}`, FINALIZER_ORPHAN);
  }

  async #delete(object: ObservedObject, view: AnyView, revision: number, policy: PropagationPolicy): Promise<void> {
    try {
      await this.registry.delete(this.#scopeOf(view, object.namespace), object.name, {
        dryRun: false,
        preconditions: { uid: object.uid, resourceVersion: String(revision) },
        propagation: { policy },
      });
    } catch (error) {
      if (!(error instanceof StatusError)) throw error;
      // Changed since it was read: look again (upstream retries without the resourceVersion when its references are the same).
      if (error.reason === 'Conflict') this.queue.add(`delete:${object.uid}`);
      else if (error.reason !== 'NotFound') throw error;
    }
  }

  /** update rewrites one object's metadata through the registry, as long as it is still the object observed. */
  async #update(object: ObservedObject, view: AnyView, retry: Job, change: (current: KubeObject) => KubeObject | undefined): Promise<void> {
    try {
      await this.registry.update(
        this.#scopeOf(view, object.namespace),
        object.name,
        (current) => {
          if (current === undefined || current.metadata.uid !== object.uid) throw new Changed();
          const next = change(current);
          if (next === undefined) throw new Changed();
          return next;
        },
        { dryRun: false, fieldManager: GARBAGE_COLLECTOR_MANAGER, allowCreate: false },
      );
    } catch (error) {
      if (error instanceof Changed) return;
      if (!(error instanceof StatusError)) throw error;
      if (error.reason === 'Conflict') this.queue.add(retry);
      else if (error.reason !== 'NotFound') throw error;
    }
  }

  #updateReferences(object: ObservedObject, view: AnyView, retry: Job, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    return this.#update(object, view, retry, (current) => {
      const refs = ownerReferencesOf(current);
      const next = change(refs);
      if (JSON.stringify(next) === JSON.stringify(refs)) return undefined;
      const { ownerReferences: _drop, ...meta } = current.metadata;
      return { ...current, metadata: next.length === 0 ? meta : { ...meta, ownerReferences: next } };
    });
  }

  #removeFinalizer(object: ObservedObject, view: AnyView, retry: Job, finalizer: string): Promise<void> {
    return this.#update(object, view, retry, (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return undefined;
      return { ...current, metadata: { ...current.metadata, finalizers: finalizers.filter((name) => name !== finalizer) } };
    });
  }
}
