/**
 * The apiextensions controllers' part in a CRD's life, run in the registry's hooks as a single
 * apiserver would have them settle at once: the naming and establishing controllers' status
 * (`acceptNames`, written with the CRD), a DELETE that marks the CRD Terminating with the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer (the CRD REST storage's Delete), and the
 * finalizer controller removing every instance, then the finalizer (and with it the CRD), and
 * accepting again the names of CRDs that conflicted with the deleted one.
 */
import type { Store, Transaction } from '../../../store/index.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { CRD_STORE_KIND } from './crd-resource.ts';
import { CRD_CLEANUP_FINALIZER, customStoreKindOf } from './custom-resource-view.ts';
import { acceptNames } from './definition/index.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from './types.ts';

/** withCondition sets one condition, keeping its transition time when its status does not change. */
function withCondition(crd: CustomResourceDefinition, condition: CustomResourceDefinitionCondition): CustomResourceDefinition {
  const conditions = crd.status?.conditions ?? [];
  const previous = conditions.find((each) => each.type === condition.type);
  const next =
    previous !== undefined && previous.status === condition.status && previous.lastTransitionTime !== undefined
      ? { ...condition, lastTransitionTime: previous.lastTransitionTime }
      : condition;
  return {
    ...crd,
    status: {
      ...crd.status,
      conditions: previous === undefined ? [...conditions, next] : conditions.map((each) => (each.type === condition.type ? next : each)),
    },
  };
}

/**
 * settleNames writes the naming and establishing controllers' status into a CRD about to be
 * stored (create or update of the main resource), against the other stored CRDs; a Terminating
 * condition is kept.
 */
export async function settleNames(tx: Transaction, crd: CustomResourceDefinition, now: number): Promise<void> {
  const others = (await tx.list<CustomResourceDefinition>(CRD_STORE_KIND))
    .map((record) => record.value)
    .filter((other) => other.metadata.name !== crd.metadata.name);
  const terminating = crd.status?.conditions?.find((condition) => condition.type === 'Terminating');
  const status = acceptNames(crd, others, formatTime(now));
  crd.status =
    terminating === undefined ? status : { ...status, conditions: [...(status.conditions ?? []).filter((c) => c.type !== 'Terminating'), terminating] };
}

/** markTerminating is what a first DELETE of a CRD stores: the deletion time, the cleanup finalizer and the Terminating condition. */
export function markTerminating(crd: CustomResourceDefinition, now: number): CustomResourceDefinition {
  const finalizers = crd.metadata.finalizers ?? [];
  const marked: CustomResourceDefinition = {
    ...crd,
    metadata: {
      ...crd.metadata,
      deletionTimestamp: formatTime(now),
      deletionGracePeriodSeconds: 0,
      finalizers: finalizers.includes(CRD_CLEANUP_FINALIZER) ? finalizers : [...finalizers, CRD_CLEANUP_FINALIZER],
    },
  };
  return withCondition(marked, {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: formatTime(now),
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  });
}

/**
 * finalizeCrd is the finalizer controller's work for one Terminating CRD: every instance goes
 * (those with finalizers of their own are marked and waited for), then the cleanup finalizer,
 * and the CRD with it when no other finalizer holds it; then CRDs of the same group whose names
 * conflicted with it are accepted again. Does nothing for a CRD that is gone or not terminating.
 */
export async function finalizeCrd(store: Store, name: string, now: () => number, delay: (ms: number) => Promise<void>, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    const outcome = await store.transact(async (tx) => {
      const record = await tx.get<CustomResourceDefinition>(CRD_STORE_KIND, name);
      if (record === undefined || record.value.metadata.deletionTimestamp === undefined) return 'done';
      if (!(record.value.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return 'done';
      let waiting = 0;
      for (const instance of await tx.list<KubeObject>(customStoreKindOf(name))) {
        if ((instance.value.metadata.finalizers ?? []).length === 0) {
          await tx.delete(customStoreKindOf(name), instance.key);
          continue;
        }
        waiting++;
        if (instance.value.metadata.deletionTimestamp === undefined) {
          const marked = { ...instance.value, metadata: { ...instance.value.metadata, deletionTimestamp: formatTime(now()), deletionGracePeriodSeconds: 0 } };
          await tx.put(customStoreKindOf(name), instance.key, marked, { expectRevision: instance.revision });
        }
      }
      if (waiting > 0) {
        const progressing = withCondition(record.value, {
          type: 'Terminating',
          status: 'True',
          lastTransitionTime: formatTime(now()),
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        });
        if (JSON.stringify(progressing.status) !== JSON.stringify(record.value.status))
          await tx.put(CRD_STORE_KIND, name, progressing, { expectRevision: record.revision });
        return 'waiting';
      }
      const finalizers = (record.value.metadata.finalizers ?? []).filter((finalizer) => finalizer !== CRD_CLEANUP_FINALIZER);
      if (finalizers.length === 0) {
        await tx.delete(CRD_STORE_KIND, name, { expectRevision: record.revision });
        await acceptFreedNames(tx, record.value, now());
        return 'done';
      }
      const completed = withCondition(record.value, {
        type: 'Terminating',
        status: 'False',
        lastTransitionTime: formatTime(now()),
        reason: 'InstanceDeletionCompleted',
        message: 'removed all instances',
      });
      await tx.put(CRD_STORE_KIND, name, { ...completed, metadata: { ...completed.metadata, finalizers } }, { expectRevision: record.revision });
      return 'done';
    });
    if (outcome === 'done') return;
    await delay(250);
  }
}

/** acceptFreedNames gives the CRDs of a deleted CRD's group whose names were refused another look (the naming controller's requeue). */
async function acceptFreedNames(tx: Transaction, deleted: CustomResourceDefinition, now: number): Promise<void> {
  for (const record of await tx.list<CustomResourceDefinition>(CRD_STORE_KIND)) {
    const crd = record.value;
    if (crd.spec.group !== deleted.spec.group) continue;
    if (!(crd.status?.conditions ?? []).some((condition) => condition.type === 'NamesAccepted' && condition.status !== 'True')) continue;
    const next: CustomResourceDefinition = structuredClone(crd);
    await settleNames(tx, next, now);
    await tx.put(CRD_STORE_KIND, record.key, next, { expectRevision: record.revision });
  }
}

/** terminatingCrds lists the CRDs a stopped server left Terminating, to finish at start. */
export async function terminatingCrds(store: Store): Promise<string[]> {
  return (await store.list<CustomResourceDefinition>(CRD_STORE_KIND))
    .filter((record) => record.value.metadata.deletionTimestamp !== undefined)
    .map((record) => record.key);
}
