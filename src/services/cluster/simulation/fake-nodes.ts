/**
 * Fake Nodes, as kwok keeps them: `--nodes N` Nodes named `fogbank-node-1` … with kwok's labels
 * and annotation, a pod CIDR each, and the status kwok's `node-initialize` stage writes (Ready and
 * the pressure conditions in the kubelet's words, kwok's default capacity, addresses, nodeInfo).
 * Every Node is managed (kwokctl's `--manage-all-nodes`): a Node a client creates is initialized
 * the same way, keeping the capacity and addresses it was given.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { recordAt } from '../resources/pod-spec.ts';
import { SERVED_VERSION } from '../version.ts';
import { type ClusterAccess, NODES } from './cluster-access.ts';

/** KUBELET_MANAGER is the field manager of what the simulated kubelet writes (Node and Pod status). */
export const KUBELET_MANAGER = 'kubelet';

/** FAKE_NODE_ANNOTATION marks the Nodes the simulation made (kwok's own marker). */
export const FAKE_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** KWOK_CAPACITY is kwok's default capacity and allocatable of a Node that declares none. */
export const KWOK_CAPACITY: Readonly<Record<string, string>> = { cpu: '1k', memory: '1Ti', pods: '1M' };

/** fakeNodeName is the name of the `index`th (1-based) fake Node. */
export function fakeNodeName(index: number): string {
  return `fogbank-node-${index}`;
}

/** nodeInternalIp is a fake Node's InternalIP, as kind numbers its nodes on its Docker network. */
export function nodeInternalIp(index: number): string {
  return `172.18.${Math.floor((index + 1) / 256)}.${(index + 1) % 256}`;
}

/** fakeNode is what the simulation creates for the `index`th Node (its status follows, as on a kubelet's registration). */
export function fakeNode(index: number): KubeObject & Record<string, unknown> {
  const name = fakeNodeName(index);
  const cidr = `10.244.${index}.0/24`;
  return {
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
        type: 'kwok',
      },
      annotations: { [FAKE_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr] },
  };
}

function condition(type: string, status: string, reason: string, message: string, heartbeat: string, transition: string): Record<string, unknown> {
  return { type, status, lastHeartbeatTime: heartbeat, lastTransitionTime: transition, reason, message };
}

/** isNodeReady is true when a Node's Ready condition is True. */
export function isNodeReady(node: KubeObject): boolean {
  const conditions = (recordAt(node, 'status')?.['conditions'] ?? []) as Record<string, unknown>[];
  return conditions.some((entry) => entry['type'] === 'Ready' && entry['status'] === 'True');
}

/** nodeAddress is a Node's address of `type` (InternalIP, Hostname), if it has one. */
export function nodeAddress(node: KubeObject, type: string): string | undefined {
  const addresses = (recordAt(node, 'status')?.['addresses'] ?? []) as Record<string, unknown>[];
  const found = addresses.find((entry) => entry['type'] === type);
  return found === undefined ? undefined : String(found['address'] ?? '');
}

/** initializeNodeStatus writes kwok's node-initialize status into `node` (in place), keeping what it declares. */
export function initializeNodeStatus(node: BuiltinObject, internalIp: string, now: number): void {
  const status = (recordAt(node, 'status') ?? {}) as Record<string, unknown>;
  const heartbeat = formatTime(now);
  const created = node.metadata.creationTimestamp ?? heartbeat;
  const name = node.metadata.name ?? '';
  const declared = (key: string): Record<string, string> => {
    const value = status[key] as Record<string, string> | undefined;
    return value === undefined || Object.keys(value).length === 0 ? { ...KWOK_CAPACITY } : value;
  };
  const capacity = declared('capacity');
  const allocatable =
    status['allocatable'] === undefined || Object.keys(status['allocatable'] as object).length === 0 ? { ...capacity } : declared('allocatable');
  const addresses = (status['addresses'] as unknown[] | undefined)?.length
    ? status['addresses']
    : [
        { type: 'InternalIP', address: internalIp },
        { type: 'Hostname', address: name },
      ];
  node['status'] = {
    ...status,
    capacity,
    allocatable,
    conditions: [
      condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', heartbeat, created),
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', heartbeat, created),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', heartbeat, created),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', heartbeat, created),
      condition('NetworkUnavailable', 'False', 'RouteCreated', 'RouteController created a route', heartbeat, created),
    ],
    addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: '',
      systemUUID: '',
      bootID: '',
      kernelVersion: '',
      osImage: '',
      containerRuntimeVersion: '',
      kubeletVersion: SERVED_VERSION.gitVersion,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    phase: 'Running',
  };
}

/** ensureFakeNodes creates the fake Nodes `fogbank-node-1` … `fogbank-node-<count>` that are missing. */
export async function ensureFakeNodes(access: ClusterAccess, count: number): Promise<void> {
  for (let index = 1; index <= count; index++) {
    if ((await access.get(NODES, undefined, fakeNodeName(index))) !== undefined) continue;
    try {
      await access.create(NODES, undefined, fakeNode(index), KUBELET_MANAGER);
    } catch (error) {
      // Another replica registered it first.
      if (!(error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists')) throw error;
    }
  }
}
