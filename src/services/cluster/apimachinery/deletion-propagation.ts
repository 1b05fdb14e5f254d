/**
 * What a DELETE's propagation asks of the garbage collector, as the apiserver's generic store
 * decides it (upstream apiserver `pkg/registry/generic/registry/store.go`:
 * `deletionFinalizersForGarbageCollection`, `shouldOrphanDependents`, `shouldDeleteDependents`):
 * the owner keeps, gains or loses the `orphan` and `foregroundDeletion` finalizers, and the
 * collector does the rest once it sees them. Priority: `orphanDependents` (deprecated) over
 * `propagationPolicy` over a finalizer the object already carries over the kind's default.
 */

/** PropagationPolicy is DeleteOptions.propagationPolicy. */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** PROPAGATION_POLICIES are the values DeleteOptions accepts, in the validation message's order. */
export const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

/** FINALIZER_ORPHAN is metav1.FinalizerOrphanDependents: the collector strips the owner's references from its dependents, then removes it. */
export const FINALIZER_ORPHAN = 'orphan';
/** FINALIZER_FOREGROUND is metav1.FinalizerDeleteDependents: the owner stays until its blocking dependents are gone. */
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** Propagation is what a DELETE said about the dependents (both unset: the object's finalizers, then the kind's default, decide). */
export interface Propagation {
  readonly policy?: PropagationPolicy;
  readonly orphanDependents?: boolean;
}

const JOB_ORPHAN_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

/**
 * ORPHAN_BY_DEFAULT are the resources whose strategy's DefaultGarbageCollectionPolicy is
 * OrphanDependents at the served version, by `group/version/resource`, with the warning the
 * storage sends when a DELETE relies on it (upstream `pkg/registry/core/replicationcontroller`,
 * `pkg/registry/batch/job/storage/storage.go`).
 */
const ORPHAN_BY_DEFAULT: ReadonlyMap<string, string | undefined> = new Map([
  ['/v1/replicationcontrollers', undefined],
  ['batch/v1/jobs', JOB_ORPHAN_WARNING],
]);

/** ResourceCoordinates name a served resource by its canonical group, version and plural. */
export interface ResourceCoordinates {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

function orphansByDefault(resource: ResourceCoordinates): boolean {
  return ORPHAN_BY_DEFAULT.has(`${resource.group}/${resource.version}/${resource.resource}`);
}

/** defaultOrphanWarning is the warning a DELETE of `resource` that names no propagation gets (a Job's), if any. */
export function defaultOrphanWarning(resource: ResourceCoordinates, propagation: Propagation): string | undefined {
  if (propagation.policy !== undefined || propagation.orphanDependents !== undefined) return undefined;
  return ORPHAN_BY_DEFAULT.get(`${resource.group}/${resource.version}/${resource.resource}`);
}

function shouldOrphan(resource: ResourceCoordinates, finalizers: readonly string[], propagation: Propagation): boolean {
  if (propagation.orphanDependents !== undefined) return propagation.orphanDependents;
  if (propagation.policy !== undefined) return propagation.policy === 'Orphan';
  for (const finalizer of finalizers) {
    if (finalizer === FINALIZER_ORPHAN) return true;
    if (finalizer === FINALIZER_FOREGROUND) return false;
  }
  return orphansByDefault(resource);
}

function shouldDeleteInForeground(finalizers: readonly string[], propagation: Propagation): boolean {
  if (propagation.orphanDependents !== undefined) return false;
  if (propagation.policy !== undefined) return propagation.policy === 'Foreground';
  for (const finalizer of finalizers) {
    if (finalizer === FINALIZER_FOREGROUND) return true;
    if (finalizer === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * finalizersForDeletion are the finalizers an object carries once a DELETE with `propagation`
 * reaches it: both garbage-collection finalizers dropped, then the one the propagation asks for
 * added at the end; undefined when the set is unchanged (the object keeps its own list).
 */
export function finalizersForDeletion(resource: ResourceCoordinates, finalizers: readonly string[], propagation: Propagation): string[] | undefined {
  const next = finalizers.filter((finalizer) => finalizer !== FINALIZER_ORPHAN && finalizer !== FINALIZER_FOREGROUND);
  if (shouldOrphan(resource, finalizers, propagation)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(finalizers, propagation)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((finalizer) => before.has(finalizer))) return undefined;
  return next;
}
