/**
 * Whether a Pod fits a Node, as kube-scheduler's default filter plugins decide it, in their order
 * (upstream `pkg/scheduler/framework/plugins/`): NodeUnschedulable, NodeName, TaintToleration,
 * NodeAffinity (nodeSelector and required node affinity), NodeResourcesFit (requests against
 * allocatable, pods count). The first plugin that refuses gives the Node's reasons, and the
 * FailedScheduling message is the framework's FitError text (`framework/types.go`).
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { parseQuantity } from '../crd/cel/library-quantity.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { isNodeReady } from './fake-nodes.ts';

type Json = Record<string, unknown>;

/** Requests are a Pod's (or a Node's used) resources: millicores, bytes, pods. */
export interface Requests {
  cpu: number;
  memory: number;
  pods: number;
}

/** quantityValue reads a resource quantity (`100m`, `1Gi`, `1k`) scaled by `scale` (1000 for millicores), 0 when unreadable. */
export function quantityValue(text: unknown, scale = 1): number {
  if (typeof text !== 'string' && typeof text !== 'number') return 0;
  try {
    const quantity = parseQuantity(String(text));
    return Number((quantity.num * BigInt(scale) + quantity.den - 1n) / quantity.den);
  } catch {
    return 0;
  }
}

function containerRequests(container: Json): Requests {
  const requests = (recordAt(container, 'resources')?.['requests'] ?? {}) as Json;
  return { cpu: quantityValue(requests['cpu'], 1000), memory: quantityValue(requests['memory']), pods: 0 };
}

/** podRequests is what a Pod asks of a Node: max(Σ containers, each init container), plus overhead, plus one pod. */
export function podRequests(pod: KubeObject): Requests {
  const spec = recordAt(pod, 'spec');
  const sum: Requests = { cpu: 0, memory: 0, pods: 1 };
  for (const container of listOf(spec?.['containers'])) {
    const requests = containerRequests(container);
    sum.cpu += requests.cpu;
    sum.memory += requests.memory;
  }
  for (const container of listOf(spec?.['initContainers'])) {
    const requests = containerRequests(container);
    sum.cpu = Math.max(sum.cpu, requests.cpu);
    sum.memory = Math.max(sum.memory, requests.memory);
  }
  const overhead = (spec?.['overhead'] ?? {}) as Json;
  sum.cpu += quantityValue(overhead['cpu'], 1000);
  sum.memory += quantityValue(overhead['memory']);
  return sum;
}

/** allocatableOf is what a Node offers. */
export function allocatableOf(node: KubeObject): Requests {
  const allocatable = (recordAt(node, 'status')?.['allocatable'] ?? {}) as Json;
  return { cpu: quantityValue(allocatable['cpu'], 1000), memory: quantityValue(allocatable['memory']), pods: quantityValue(allocatable['pods']) };
}

interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}

function tolerates(tolerations: readonly Json[], taint: Taint): boolean {
  return tolerations.some((toleration) => {
    const effect = String(toleration['effect'] ?? '');
    if (effect !== '' && effect !== taint.effect) return false;
    const key = String(toleration['key'] ?? '');
    const operator = String(toleration['operator'] ?? 'Equal');
    if (operator === 'Exists') return key === '' || key === taint.key;
    return key === taint.key && String(toleration['value'] ?? '') === taint.value;
  });
}

/** nodeTaints are a Node's taints, plus `node.kubernetes.io/not-ready:NoSchedule` while it is not Ready (the node-lifecycle controller's). */
export function nodeTaints(node: KubeObject): Taint[] {
  const taints = listOf(recordAt(node, 'spec')?.['taints']).map((taint) => ({
    key: String(taint['key'] ?? ''),
    value: String(taint['value'] ?? ''),
    effect: String(taint['effect'] ?? ''),
  }));
  if (!isNodeReady(node)) taints.push({ key: 'node.kubernetes.io/not-ready', value: '', effect: 'NoSchedule' });
  return taints;
}

/** untoleratedTaint is the first NoSchedule/NoExecute taint of the Node the tolerations do not tolerate. */
export function untoleratedTaint(tolerations: readonly Json[], node: KubeObject): Taint | undefined {
  return nodeTaints(node).find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerates(tolerations, taint));
}

function requirementMatches(requirement: Json, value: string | undefined): boolean {
  const values = (requirement['values'] ?? []) as string[];
  switch (requirement['operator']) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      const [bound] = values;
      return requirement['operator'] === 'Gt' ? Number(value) > Number(bound) : Number(value) < Number(bound);
    }
    default:
      return false;
  }
}

/** matchesNodeAffinity is true when the Node satisfies the Pod's nodeSelector and required node affinity. */
export function matchesNodeAffinity(pod: KubeObject, node: KubeObject): boolean {
  const spec = recordAt(pod, 'spec');
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries((spec?.['nodeSelector'] ?? {}) as Record<string, string>)) if (labels[key] !== value) return false;
  const required = recordAt(spec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
  if (required === undefined) return true;
  const terms = listOf(required['nodeSelectorTerms']);
  return terms.some((term) => {
    const expressions = listOf(term['matchExpressions']);
    const fields = listOf(term['matchFields']);
    if (expressions.length === 0 && fields.length === 0) return false;
    return (
      expressions.every((requirement) => requirementMatches(requirement, labels[String(requirement['key'] ?? '')])) &&
      fields.every((requirement) => requirement['key'] === 'metadata.name' && requirementMatches(requirement, node.metadata.name))
    );
  });
}

/** Refusal is why one Node does not fit: the plugin's reasons, and whether preemption could help. */
export interface Refusal {
  readonly reasons: readonly string[];
  /** resolvable is true for resource shortages (preemption might free room), false for the rest (UnschedulableAndUnresolvable). */
  readonly resolvable: boolean;
}

/** fitRefusal is why `pod` does not fit `node` with `used` already taken there, or undefined when it fits. */
export function fitRefusal(pod: KubeObject, node: KubeObject, used: Requests): Refusal | undefined {
  const spec = recordAt(pod, 'spec');
  const tolerations = listOf(spec?.['tolerations']);
  if (
    recordAt(node, 'spec')?.['unschedulable'] === true &&
    !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', value: '', effect: 'NoSchedule' })
  )
    return { reasons: ['node(s) were unschedulable'], resolvable: false };
  const taint = untoleratedTaint(tolerations, node);
  if (taint !== undefined) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value}}`], resolvable: false };
  if (!matchesNodeAffinity(pod, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
  const want = podRequests(pod);
  const offered = allocatableOf(node);
  const reasons: string[] = [];
  if (used.pods + 1 > offered.pods) reasons.push('Too many pods');
  if (want.cpu > 0 && used.cpu + want.cpu > offered.cpu) reasons.push('Insufficient cpu');
  if (want.memory > 0 && used.memory + want.memory > offered.memory) reasons.push('Insufficient memory');
  return reasons.length === 0 ? undefined : { reasons, resolvable: true };
}

/** fitErrorMessage is the FailedScheduling text for a Pod no Node of `nodeCount` takes (FitError.Error with the preemption PostFilter's message). */
export function fitErrorMessage(nodeCount: number, refusals: readonly Refusal[]): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const histogram = (texts: readonly string[]): string => {
    const counts = new Map<string, number>();
    for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
    return [...counts.entries()]
      .map(([reason, count]) => `${count} ${reason}`)
      .sort()
      .join(', ');
  };
  const filter = histogram(refusals.flatMap((refusal) => refusal.reasons));
  const preemption = histogram(
    refusals.map((refusal) => (refusal.resolvable ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling')),
  );
  return `0/${nodeCount} nodes are available: ${filter}. preemption: 0/${nodeCount} nodes are available: ${preemption}.`;
}
