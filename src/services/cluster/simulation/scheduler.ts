/**
 * The simulated kube-scheduler: one pass binds every Pod waiting for a Node (no `nodeName`, the
 * `default-scheduler`, no scheduling gates, not being deleted), in creation order, to the
 * feasible Node with the fewest Pods (a stand-in for the default scoring), counting what each
 * binding takes. A Pod no Node takes stays Pending with `PodScheduled=False` (`Unschedulable`)
 * and a `FailedScheduling` Event in the scheduler's words; any change to Nodes or Pods runs the
 * pass again, as the scheduling queue retries. A binding is what the Binding subresource stores
 * (upstream `pkg/registry/core/pod/storage/storage.go`): `spec.nodeName` and the `PodScheduled`
 * condition in one write, then the `Scheduled` Event.
 */
import type { Store } from '../../../store/index.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, NODES, POD_TYPE, PODS } from './cluster-access.ts';
import { conditionOf, isTerminal, setCondition } from './pod-conditions.ts';
import { fitErrorMessage, fitRefusal, podRequests, type Refusal, type Requests } from './scheduling-fit.ts';
import type { Reconciler } from './work-queue.ts';

/** SCHEDULER_NAME is the scheduler this simulation is: the default one. */
export const SCHEDULER_NAME = 'default-scheduler';

/** SCHEDULER_KEY is the scheduler's one work-queue key: a pass over every waiting Pod. */
export const SCHEDULER_KEY = 'pending';

/** waitsForScheduling is true for a Pod the default scheduler should place. */
export function waitsForScheduling(pod: KubeObject): boolean {
  const spec = recordAt(pod, 'spec');
  return (
    pod.metadata.deletionTimestamp === undefined &&
    String(spec?.['nodeName'] ?? '') === '' &&
    String(spec?.['schedulerName'] ?? SCHEDULER_NAME) === SCHEDULER_NAME &&
    listOf(spec?.['schedulingGates']).length === 0 &&
    !isTerminal(pod)
  );
}

function creationOrder(a: KubeObject, b: KubeObject): number {
  const at = String(a.metadata.creationTimestamp ?? '');
  const bt = String(b.metadata.creationTimestamp ?? '');
  return at < bt ? -1 : at > bt ? 1 : 0;
}

export class Scheduler implements Reconciler {
  readonly name = 'scheduler';

  constructor(
    readonly access: ClusterAccess,
    readonly store: Store,
  ) {}

  async sync(): Promise<void> {
    const nodes = (await this.access.list(NODES)).sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
    const pods = await this.access.list(PODS);
    const used = new Map<string, Requests>(nodes.map((node) => [node.metadata.name ?? '', { cpu: 0, memory: 0, pods: 0 }]));
    const waiting: BuiltinObject[] = [];
    for (const pod of pods) {
      const nodeName = String(recordAt(pod, 'spec')?.['nodeName'] ?? '');
      if (nodeName === '') {
        if (waitsForScheduling(pod)) waiting.push(pod);
        continue;
      }
      const onNode = used.get(nodeName);
      if (onNode === undefined || isTerminal(pod)) continue;
      const requests = podRequests(pod);
      onNode.cpu += requests.cpu;
      onNode.memory += requests.memory;
      onNode.pods += 1;
    }
    waiting.sort(creationOrder);
    for (const pod of waiting) {
      const refusals: Refusal[] = [];
      let chosen: { name: string; used: Requests } | undefined;
      for (const node of nodes) {
        const name = node.metadata.name ?? '';
        const onNode = used.get(name)!;
        const refusal = fitRefusal(pod, node, onNode);
        if (refusal !== undefined) refusals.push(refusal);
        else if (chosen === undefined || onNode.pods < chosen.used.pods) chosen = { name, used: onNode };
      }
      if (chosen === undefined) {
        await this.#unschedulable(pod, fitErrorMessage(nodes.length, refusals));
        continue;
      }
      if (await this.#bind(pod, chosen.name)) {
        const requests = podRequests(pod);
        chosen.used.cpu += requests.cpu;
        chosen.used.memory += requests.memory;
        chosen.used.pods += 1;
      }
    }
  }

  /** #bind stores the binding as the Binding subresource does; false when the Pod went or was placed meanwhile. */
  async #bind(pod: KubeObject, nodeName: string): Promise<boolean> {
    const storeKind = this.access.storeKind(PODS);
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const bound = await this.store.transact(async (tx) => {
      const current = await tx.get<BuiltinObject>(storeKind, key);
      if (current === undefined || current.value.metadata.uid !== pod.metadata.uid || !waitsForScheduling(current.value)) return undefined;
      const next = structuredClone(current.value) as BuiltinObject;
      next['spec'] = { ...(next['spec'] as object), nodeName };
      setCondition(next, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(this.access.now()) }, { inPlace: true });
      await tx.put(storeKind, key, next, { expectRevision: current.revision });
      return next;
    });
    if (bound === undefined) return false;
    await this.access.event(bound, POD_TYPE, 'Normal', 'Scheduled', `Successfully assigned ${key} to ${nodeName}`, { component: SCHEDULER_NAME });
    return true;
  }

  /** #unschedulable records why the Pod stays Pending (once per distinct reason, as the events would be aggregated). */
  async #unschedulable(pod: BuiltinObject, message: string): Promise<void> {
    const current = conditionOf(pod, 'PodScheduled');
    if (current?.['status'] === 'False' && current['message'] === message) return;
    const written = await this.access.updateStatus(
      PODS,
      pod.metadata.namespace,
      pod.metadata.name ?? '',
      (object) =>
        setCondition(object, {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: formatTime(this.access.now()),
          reason: 'Unschedulable',
          message,
        }),
      SCHEDULER_NAME,
    );
    if (written !== undefined) await this.access.event(pod, POD_TYPE, 'Warning', 'FailedScheduling', message, { component: SCHEDULER_NAME });
  }
}
