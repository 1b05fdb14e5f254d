/**
 * The garbage collector's picture of the cluster (upstream `graph.go`, `graph_builder.go`): every
 * observed object by uid, with its owner references, and for every uid referenced as an owner
 * the dependents that reference it (whether or not an object with that uid is observed: upstream's
 * virtual nodes). `observe` and `remove` answer what the change means for the collector — which
 * objects to attempt to delete and which owners to orphan — as the graph builder's
 * `processTransitions` does.
 */
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../apimachinery/deletion-propagation.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';

/** OwnerReference is metav1.OwnerReference as stored. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** ObservedObject is one object the collector has seen. */
export interface ObservedObject {
  readonly uid: string;
  readonly storeKind: string;
  readonly key: string;
  /** namespace is undefined for a cluster-scoped object. */
  readonly namespace: string | undefined;
  readonly name: string;
  readonly owners: readonly OwnerReference[];
  /** deletingDependents: being deleted with the `foregroundDeletion` finalizer. */
  readonly deletingDependents: boolean;
  /** orphaning: being deleted with the `orphan` finalizer. */
  readonly orphaning: boolean;
}

/** Work is what a change asks of the collector. */
export interface Work {
  /** attemptToDelete are uids whose owners (or, for a foreground owner, whose dependents) to check. */
  readonly attemptToDelete: string[];
  /** attemptToOrphan are uids of owners whose dependents to release. */
  readonly attemptToOrphan: string[];
}

/** ownerReferencesOf reads an object's owner references, skipping malformed entries validation would refuse. */
export function ownerReferencesOf(object: KubeObject): OwnerReference[] {
  const refs = object.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter(
    (ref): ref is OwnerReference =>
      typeof ref === 'object' && ref !== null && typeof (ref as OwnerReference).uid === 'string' && typeof (ref as OwnerReference).name === 'string',
  );
}

/** observedObjectOf is what the collector keeps of a stored object. */
export function observedObjectOf(storeKind: string, key: string, object: KubeObject, namespaced: boolean): ObservedObject | undefined {
  const uid = object.metadata.uid;
  if (uid === undefined || uid === '') return undefined;
  const finalizers = object.metadata.finalizers ?? [];
  const beingDeleted = object.metadata.deletionTimestamp !== undefined && object.metadata.deletionTimestamp !== null;
  return {
    uid,
    storeKind,
    key,
    namespace: namespaced ? (object.metadata.namespace ?? '') : undefined,
    name: object.metadata.name ?? '',
    owners: ownerReferencesOf(object),
    deletingDependents: beingDeleted && finalizers.includes(FINALIZER_FOREGROUND),
    orphaning: beingDeleted && finalizers.includes(FINALIZER_ORPHAN),
  };
}

function blocks(object: ObservedObject, ownerUid: string): boolean {
  return object.owners.some((ref) => ref.uid === ownerUid && ref.blockOwnerDeletion === true);
}

/** OwnerGraph is the uid-indexed graph of observed objects and their owner references. */
export class OwnerGraph {
  readonly #objects = new Map<string, ObservedObject>();
  readonly #dependents = new Map<string, Set<string>>();

  /** size is how many objects are observed. */
  get size(): number {
    return this.#objects.size;
  }

  get(uid: string): ObservedObject | undefined {
    return this.#objects.get(uid);
  }

  /** objects are every observed object. */
  objects(): IterableIterator<ObservedObject> {
    return this.#objects.values();
  }

  /** dependentsOf are the observed objects referencing `uid` as an owner. */
  dependentsOf(uid: string): ObservedObject[] {
    const out: ObservedObject[] = [];
    for (const dependent of this.#dependents.get(uid) ?? []) {
      const object = this.#objects.get(dependent);
      if (object !== undefined) out.push(object);
    }
    return out;
  }

  /** blockingDependentsOf are the dependents of `uid` whose reference to it has `blockOwnerDeletion`. */
  blockingDependentsOf(uid: string): ObservedObject[] {
    return this.dependentsOf(uid).filter((dependent) => blocks(dependent, uid));
  }

  /** clear forgets everything (a relist follows). */
  clear(): void {
    this.#objects.clear();
    this.#dependents.clear();
  }

  /**
   * needsAttention: an object some of whose owners is not observed with that uid, is in another
   * namespace, or is deleting its dependents; the collector then checks its owners.
   */
  needsAttention(object: ObservedObject): boolean {
    return object.owners.some((ref) => {
      const owner = this.#objects.get(ref.uid);
      return owner === undefined || owner.deletingDependents || (owner.namespace !== undefined && owner.namespace !== object.namespace);
    });
  }

  /** observe records an object's current state and answers the work its change makes. */
  observe(object: ObservedObject): Work {
    const work: Work = { attemptToDelete: [], attemptToOrphan: [] };
    const before = this.#objects.get(object.uid);
    this.#objects.set(object.uid, object);
    const previousOwners = before?.owners ?? [];
    for (const ref of previousOwners) {
      if (object.owners.some((next) => next.uid === ref.uid)) continue;
      this.#unlink(ref.uid, object.uid);
    }
    for (const ref of object.owners) {
      let set = this.#dependents.get(ref.uid);
      if (set === undefined) {
        set = new Set();
        this.#dependents.set(ref.uid, set);
      }
      set.add(object.uid);
    }
    // A dependent that stopped blocking (reference removed, or blockOwnerDeletion dropped) may release a foreground owner.
    for (const ref of previousOwners) {
      if (ref.blockOwnerDeletion !== true || blocks(object, ref.uid)) continue;
      if (this.#objects.get(ref.uid)?.deletingDependents === true) work.attemptToDelete.push(ref.uid);
    }
    if (before === undefined ? this.needsAttention(object) : this.#ownersChanged(before, object) && this.needsAttention(object)) {
      work.attemptToDelete.push(object.uid);
    }
    if (object.deletingDependents && before?.deletingDependents !== true) {
      work.attemptToDelete.push(object.uid, ...this.dependentsOf(object.uid).map((dependent) => dependent.uid));
    }
    if (object.orphaning) work.attemptToOrphan.push(object.uid);
    // Dependents that saw this uid before it was observed (or in another namespace) are checked again.
    if (before === undefined) work.attemptToDelete.push(...this.#dependentsToRecheck(object));
    return work;
  }

  /** remove forgets a deleted object and answers the work: its dependents lost an owner, its owners may be waiting on it. */
  remove(uid: string): Work {
    const work: Work = { attemptToDelete: [], attemptToOrphan: [] };
    const object = this.#objects.get(uid);
    if (object === undefined) return work;
    this.#objects.delete(uid);
    for (const ref of object.owners) {
      this.#unlink(ref.uid, uid);
      if (this.#objects.get(ref.uid)?.deletingDependents === true) work.attemptToDelete.push(ref.uid);
    }
    work.attemptToDelete.push(...this.dependentsOf(uid).map((dependent) => dependent.uid));
    return work;
  }

  #ownersChanged(before: ObservedObject, after: ObservedObject): boolean {
    if (before.owners.length !== after.owners.length) return true;
    return before.owners.some((ref, index) => {
      const next = after.owners[index]!;
      return ref.uid !== next.uid || ref.name !== next.name || ref.kind !== next.kind || ref.apiVersion !== next.apiVersion;
    });
  }

  #dependentsToRecheck(owner: ObservedObject): string[] {
    // Only those in another namespace: the rest saw nothing wrong (an absent owner has no dependents waiting on it but those).
    return this.dependentsOf(owner.uid)
      .filter((dependent) => owner.namespace !== undefined && dependent.namespace !== owner.namespace)
      .map((dependent) => dependent.uid);
  }

  #unlink(ownerUid: string, dependentUid: string): void {
    const set = this.#dependents.get(ownerUid);
    if (set === undefined) return;
    set.delete(dependentUid);
    if (set.size === 0) this.#dependents.delete(ownerUid);
  }
}
