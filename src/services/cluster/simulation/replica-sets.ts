/**
 * The ReplicaSet and ReplicationController controller (upstream `pkg/controller/replicaset/
 * replica_set.go`, RC reusing it): the active Pods it controls (matching its selector, not
 * terminal, not being deleted; matching orphans adopted) are brought to `spec.replicas` —
 * created from the template in slow-start batches (1, 2, 4, …) with a controller reference,
 * deleted in the controller's order (unscheduled, Pending, not Ready, Ready for less time, more
 * restarts, newer first) — and the status counts them: `replicas`, `fullyLabeledReplicas`,
 * `readyReplicas`, `availableReplicas`, `observedGeneration`, with the controller's Events.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { selectorMatches } from '../resources/label-selector-object.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import {
  type ClusterAccess,
  controllerOf,
  controllerRef,
  PODS,
  REPLICA_SET_TYPE,
  REPLICA_SETS,
  REPLICATION_CONTROLLER_TYPE,
  REPLICATION_CONTROLLERS,
  type Resource,
  type TypeMeta,
} from './cluster-access.ts';
import { conditionOf, isPodAvailable, isPodReady, isTerminal, phaseOf } from './pod-conditions.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

/** CONTROLLER_MANAGER is the field manager of every controller's writes (kube-controller-manager's). */
export const CONTROLLER_MANAGER = 'kube-controller-manager';

/** BURST_REPLICAS is how many Pods one sync creates or deletes at most (the controller's burstReplicas). */
const BURST_REPLICAS = 500;

/** isActivePod is controller.IsPodActive: not terminal and not being deleted. */
export function isActivePod(pod: KubeObject): boolean {
  return !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
}

/** podFromTemplate is the Pod a controller makes from its template (controller.GetPodFromTemplate). */
export function podFromTemplate(template: Json | undefined, owner: KubeObject, of: TypeMeta, generateName: string): KubeObject & Json {
  const metadata = (recordAt(template, 'metadata') ?? {}) as Json;
  const labels = (metadata['labels'] ?? {}) as Record<string, string>;
  const annotations = (metadata['annotations'] ?? {}) as Record<string, string>;
  const finalizers = (metadata['finalizers'] ?? []) as string[];
  return {
    metadata: {
      generateName,
      ...(Object.keys(labels).length === 0 ? {} : { labels: { ...labels } }),
      ...(Object.keys(annotations).length === 0 ? {} : { annotations: { ...annotations } }),
      ...(finalizers.length === 0 ? {} : { finalizers: [...finalizers] }),
      ownerReferences: [controllerRef(owner, of)],
    },
    spec: structuredClone(recordAt(template, 'spec') ?? {}),
  };
}

/** deletionRank orders Pods the way the controller picks which go first (controller.ActivePods' Less). */
function deletionRank(a: BuiltinObject, b: BuiltinObject, now: number): number {
  const node = (pod: BuiltinObject) => (String(recordAt(pod, 'spec')?.['nodeName'] ?? '') === '' ? 0 : 1);
  if (node(a) !== node(b)) return node(a) - node(b);
  const phaseRank = (pod: BuiltinObject) => ({ Pending: 0, Unknown: 1, Running: 2 })[phaseOf(pod)] ?? 0;
  if (phaseRank(a) !== phaseRank(b)) return phaseRank(a) - phaseRank(b);
  const ready = (pod: BuiltinObject) => (isPodReady(pod) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const readySince = (pod: BuiltinObject) => Date.parse(String(conditionOf(pod, 'Ready')?.['lastTransitionTime'] ?? '')) || now;
  if (ready(a) === 1 && readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
  const restarts = (pod: BuiltinObject) =>
    listOf(recordAt(pod, 'status')?.['containerStatuses']).reduce((sum, entry) => sum + Number(entry['restartCount'] ?? 0), 0);
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const created = (pod: BuiltinObject) => String(pod.metadata.creationTimestamp ?? '');
  return created(a) < created(b) ? 1 : created(a) > created(b) ? -1 : 0;
}

/** ReplicaKind is what tells a ReplicaSet from a ReplicationController: the resource, its type, and how its selector reads. */
interface ReplicaKind {
  readonly resource: Resource;
  readonly type: TypeMeta;
  readonly component: string;
  readonly selects: (owner: BuiltinObject, labels: Record<string, string>) => boolean;
}

export const REPLICA_SET_KIND: ReplicaKind = {
  resource: REPLICA_SETS,
  type: REPLICA_SET_TYPE,
  component: 'replicaset-controller',
  selects: (owner, labels) => {
    const selector = recordAt(owner, 'spec', 'selector');
    return selector !== undefined && (Object.keys(selector).length > 0 ? selectorMatches(selector, labels) : false);
  },
};

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  resource: REPLICATION_CONTROLLERS,
  type: REPLICATION_CONTROLLER_TYPE,
  component: 'replication-controller',
  selects: (owner, labels) => {
    const selector = (recordAt(owner, 'spec', 'selector') ?? recordAt(owner, 'spec', 'template', 'metadata', 'labels') ?? {}) as Record<string, string>;
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);
  },
};

export class ReplicaController implements Reconciler {
  readonly name: string;

  constructor(
    readonly kind: ReplicaKind,
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {
    this.name = kind.component;
  }

  async sync(key: string): Promise<void> {
    const live = await this.access.liveByKey(this.kind.resource, key);
    if (live === undefined) return;
    const { namespace, object: owner } = live;
    const uid = owner.metadata.uid ?? '';
    const pods = await this.access.list(PODS, namespace);
    const active: BuiltinObject[] = [];
    for (const pod of pods) {
      if (!isActivePod(pod)) continue;
      const controller = controllerOf(pod);
      const matches = this.kind.selects(owner, pod.metadata.labels ?? {});
      if (controller === uid && matches) active.push(pod);
      else if (controller === undefined && matches) {
        // Adoption: the orphan gets this controller's reference.
        const adopted = await this.access.update(
          PODS,
          namespace,
          pod.metadata.name ?? '',
          (object) => {
            if (controllerOf(object) !== undefined) return;
            object.metadata.ownerReferences = [...(object.metadata.ownerReferences ?? []), controllerRef(owner, this.kind.type)];
          },
          CONTROLLER_MANAGER,
        );
        if (adopted !== undefined && controllerOf(adopted) === uid) active.push(adopted);
      }
    }
    const replicas = Number(recordAt(owner, 'spec')?.['replicas'] ?? 1);
    const now = this.access.now();
    const diff = active.length - replicas;
    if (diff < 0) await this.#create(owner, Math.min(-diff, BURST_REPLICAS));
    else if (diff > 0) {
      const doomed = [...active].sort((a, b) => deletionRank(a, b, now)).slice(0, Math.min(diff, BURST_REPLICAS));
      for (const pod of doomed) {
        if (await this.access.delete(PODS, namespace, pod.metadata.name ?? '', pod.metadata.uid))
          await this.access.event(owner, this.kind.type, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, { component: this.kind.component });
      }
    }
    await this.#status(owner, active, now);
  }

  /** #create makes `count` Pods in slow-start batches of 1, 2, 4, … (controller.slowStartBatch), stopping at the first failure. */
  async #create(owner: BuiltinObject, count: number): Promise<void> {
    const template = recordAt(owner, 'spec', 'template');
    let remaining = count;
    for (let batch = 1; remaining > 0; batch *= 2) {
      const size = Math.min(batch, remaining);
      const results = await Promise.allSettled(
        Array.from({ length: size }, async () => {
          const pod = await this.access.create(
            PODS,
            owner.metadata.namespace,
            podFromTemplate(template, owner, this.kind.type, `${owner.metadata.name}-`),
            CONTROLLER_MANAGER,
          );
          await this.access.event(owner, this.kind.type, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, { component: this.kind.component });
        }),
      );
      const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed !== undefined) {
        const message = failed.reason instanceof Error ? failed.reason.message : String(failed.reason);
        await this.access.event(owner, this.kind.type, 'Warning', 'FailedCreate', `Error creating: ${message}`, { component: this.kind.component });
        throw failed.reason;
      }
      remaining -= size;
    }
  }

  async #status(owner: BuiltinObject, active: readonly BuiltinObject[], now: number): Promise<void> {
    const templateLabels = (recordAt(owner, 'spec', 'template', 'metadata')?.['labels'] ?? {}) as Record<string, string>;
    const minReadySeconds = Number(recordAt(owner, 'spec')?.['minReadySeconds'] ?? 0);
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    let nextAvailable: number | undefined;
    for (const pod of active) {
      const labels = pod.metadata.labels ?? {};
      if (Object.entries(templateLabels).every(([key, value]) => labels[key] === value)) fullyLabeled++;
      if (!isPodReady(pod)) continue;
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
      else {
        const since = Date.parse(String(conditionOf(pod, 'Ready')?.['lastTransitionTime'] ?? ''));
        const due = since + minReadySeconds * 1000;
        if (!Number.isNaN(due)) nextAvailable = Math.min(nextAvailable ?? due, due);
      }
    }
    if (nextAvailable !== undefined) this.queue.after(nextAvailable - now, this, `${owner.metadata.namespace}/${owner.metadata.name}`);
    await this.access.updateStatus(
      this.kind.resource,
      owner.metadata.namespace,
      owner.metadata.name ?? '',
      (object) => {
        const status = (object['status'] ?? {}) as Json;
        object['status'] = {
          ...status,
          replicas: active.length,
          fullyLabeledReplicas: fullyLabeled,
          readyReplicas: ready,
          availableReplicas: available,
          observedGeneration: owner.metadata.generation,
        };
      },
      CONTROLLER_MANAGER,
    );
  }
}
