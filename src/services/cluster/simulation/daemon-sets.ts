/**
 * The DaemonSet controller (upstream `pkg/controller/daemon/{daemon_controller.go,update.go}`,
 * `util/daemonset_util.go`): one Pod per Node that should run it (its nodeSelector and required
 * affinity match, its taints are tolerated counting the automatic tolerations), made without a
 * `nodeName` but with required affinity to that Node's `metadata.name`, so the scheduler binds it;
 * Pods on Nodes that should not run one are deleted; RollingUpdate replaces Pods of an older
 * template up to maxUnavailable at a time; the status node counts kubectl rollout status reads.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, controllerOf, DAEMON_SET_TYPE, DAEMON_SETS, NODES, PODS } from './cluster-access.ts';
import { resolveIntOrPercent } from './deployments.ts';
import { isPodAvailable, isPodReady, isTerminal } from './pod-conditions.ts';
import { podTemplateHash } from './pod-template-hash.ts';
import { CONTROLLER_MANAGER, podFromTemplate } from './replica-sets.ts';
import { matchesNodeAffinity, untoleratedTaint } from './scheduling-fit.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

const COMPONENT = 'daemonset-controller';

/** DAEMON_SETS_KEY queues every DaemonSet (a Node changed). */
export const ALL_DAEMON_SETS_KEY = '*';

/** AUTOMATIC_TOLERATIONS are what the controller adds to every daemon Pod (util.AddOrUpdateDaemonPodTolerations). */
const AUTOMATIC_TOLERATIONS: readonly Json[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function tolerationsFor(template: Json | undefined): Json[] {
  const own = listOf(recordAt(template, 'spec')?.['tolerations']);
  const extra = [...AUTOMATIC_TOLERATIONS];
  if (recordAt(template, 'spec')?.['hostNetwork'] === true)
    extra.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return [...own, ...extra.filter((toleration) => !own.some((entry) => entry['key'] === toleration['key'] && entry['effect'] === toleration['effect']))];
}

/** nodeOfDaemonPod is the Node a daemon Pod is for: its nodeName, else its required metadata.name affinity. */
function nodeOfDaemonPod(pod: KubeObject): string | undefined {
  const nodeName = recordAt(pod, 'spec')?.['nodeName'];
  if (typeof nodeName === 'string' && nodeName !== '') return nodeName;
  const terms = listOf(recordAt(pod, 'spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution')?.['nodeSelectorTerms']);
  for (const term of terms)
    for (const field of listOf(term['matchFields'])) if (field['key'] === 'metadata.name') return ((field['values'] ?? []) as string[])[0];
  return undefined;
}

export class DaemonSetController implements Reconciler {
  readonly name = COMPONENT;

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {}

  async sync(key: string): Promise<void> {
    if (key === ALL_DAEMON_SETS_KEY) {
      for (const set of await this.access.list(DAEMON_SETS)) this.queue.add(this, `${set.metadata.namespace}/${set.metadata.name}`);
      return;
    }
    const live = await this.access.liveByKey(DAEMON_SETS, key);
    if (live === undefined) return;
    const { namespace, object: set } = live;
    const template = recordAt(set, 'spec', 'template');
    const hash = podTemplateHash(template, Number(recordAt(set, 'status')?.['collisionCount'] ?? 0));
    const tolerations = tolerationsFor(template);
    const probe = { metadata: {}, spec: { ...(recordAt(template, 'spec') ?? {}), tolerations } } as KubeObject;
    const nodes = await this.access.list(NODES);
    const eligible = new Set(
      nodes.filter((node) => matchesNodeAffinity(probe, node) && untoleratedTaint(tolerations, node) === undefined).map((node) => node.metadata.name ?? ''),
    );
    const pods = (await this.access.list(PODS, namespace)).filter((pod) => controllerOf(pod) === set.metadata.uid);
    const byNode = new Map<string, BuiltinObject[]>();
    for (const pod of pods) {
      if (isTerminal(pod) && pod.metadata.deletionTimestamp === undefined) {
        await this.#deletePod(set, pod);
        continue;
      }
      const node = nodeOfDaemonPod(pod) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    const now = this.access.now();
    const minReady = Number(recordAt(set, 'spec')?.['minReadySeconds'] ?? 0);
    for (const node of eligible) {
      const live = (byNode.get(node) ?? []).filter((pod) => pod.metadata.deletionTimestamp === undefined);
      if (live.length === 0 && (byNode.get(node) ?? []).length === 0) await this.#createPod(set, node, hash, tolerations);
      for (const extra of live.slice(1)) await this.#deletePod(set, extra);
    }
    let misscheduled = 0;
    for (const [node, onNode] of byNode) {
      if (eligible.has(node)) continue;
      misscheduled += onNode.filter((pod) => pod.metadata.deletionTimestamp === undefined).length > 0 ? 1 : 0;
      for (const pod of onNode) if (pod.metadata.deletionTimestamp === undefined) await this.#deletePod(set, pod);
    }
    // RollingUpdate: outdated Pods go while fewer than maxUnavailable daemon Pods are unavailable.
    const strategy = recordAt(set, 'spec', 'updateStrategy');
    const current = [...eligible].map((node) => (byNode.get(node) ?? []).find((pod) => pod.metadata.deletionTimestamp === undefined));
    if (strategy?.['type'] !== 'OnDelete') {
      const maxUnavailable = Math.max(1, resolveIntOrPercent(recordAt(strategy, 'rollingUpdate')?.['maxUnavailable'] ?? 1, eligible.size, true));
      let unavailable = [...eligible].filter(
        (node) => !(byNode.get(node) ?? []).some((pod) => pod.metadata.deletionTimestamp === undefined && isPodAvailable(pod, minReady, now)),
      ).length;
      for (const pod of current) {
        if (pod === undefined || pod.metadata.labels?.['controller-revision-hash'] === hash || unavailable >= maxUnavailable) continue;
        await this.#deletePod(set, pod);
        unavailable++;
      }
    }
    const scheduled = current.filter((pod): pod is BuiltinObject => pod !== undefined);
    const available = scheduled.filter((pod) => isPodAvailable(pod, minReady, now)).length;
    await this.access.updateStatus(
      DAEMON_SETS,
      namespace,
      set.metadata.name ?? '',
      (object) => {
        object['status'] = {
          ...((object['status'] ?? {}) as Json),
          currentNumberScheduled: scheduled.length,
          numberMisscheduled: misscheduled,
          desiredNumberScheduled: eligible.size,
          numberReady: scheduled.filter(isPodReady).length,
          observedGeneration: set.metadata.generation,
          updatedNumberScheduled: scheduled.filter((pod) => pod.metadata.labels?.['controller-revision-hash'] === hash).length,
          numberAvailable: available,
          numberUnavailable: eligible.size - available,
        };
      },
      CONTROLLER_MANAGER,
    );
  }

  async #createPod(set: BuiltinObject, node: string, hash: string, tolerations: Json[]): Promise<void> {
    const pod = podFromTemplate(recordAt(set, 'spec', 'template'), set, DAEMON_SET_TYPE, `${set.metadata.name}-`);
    pod.metadata.labels = { ...(pod.metadata.labels ?? {}), 'controller-revision-hash': hash, 'pod-template-generation': String(set.metadata.generation ?? 1) };
    const spec = pod['spec'] as Json;
    spec['tolerations'] = tolerations;
    const affinity = (spec['affinity'] ?? {}) as Json;
    affinity['nodeAffinity'] = {
      ...((affinity['nodeAffinity'] ?? {}) as Json),
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
    };
    spec['affinity'] = affinity;
    const created = await this.access.create(PODS, set.metadata.namespace, pod, CONTROLLER_MANAGER);
    await this.access.event(set, DAEMON_SET_TYPE, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`, { component: COMPONENT });
  }

  async #deletePod(set: BuiltinObject, pod: BuiltinObject): Promise<void> {
    if (await this.access.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid))
      await this.access.event(set, DAEMON_SET_TYPE, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, { component: COMPONENT });
  }
}
