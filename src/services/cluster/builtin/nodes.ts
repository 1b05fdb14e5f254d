/** v1 Node behaviour: the `kubectl get nodes` columns (no kubelet runs here; a Node's status is whatever was written). */
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';

function nodeStatus(node: BuiltinObject): string {
  const ready = listOf(recordAt(node, 'status')?.['conditions']).find((condition) => condition['type'] === 'Ready');
  let status = ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady';
  if (recordAt(node, 'spec')?.['unschedulable'] === true) status += ',SchedulingDisabled';
  return status;
}

function roles(node: BuiltinObject): string {
  const found = Object.keys(node.metadata.labels ?? {})
    .filter((label) => label.startsWith('node-role.kubernetes.io/'))
    .map((label) => label.slice('node-role.kubernetes.io/'.length))
    .filter((role) => role !== '');
  return found.length === 0 ? '<none>' : found.sort().join(',');
}

function address(node: BuiltinObject, type: string): string {
  const found = listOf(recordAt(node, 'status')?.['addresses']).find((entry) => entry['type'] === type);
  return found === undefined ? '<none>' : String(found['address']);
}

/** nodeBehaviour is Node's part of the generic strategy. */
export const nodeBehaviour: KindBehaviour = {
  tableColumns: [
    NAME_COLUMN,
    column('Status', 'The status of the node'),
    column('Roles', 'The roles of the node'),
    AGE_COLUMN,
    column('Version', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
    column('External-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
    column('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    column('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    column('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  tableRow(node, now) {
    const info = recordAt(node, 'status', 'nodeInfo');
    return [
      node.metadata.name ?? '',
      nodeStatus(node),
      roles(node),
      ageSince(node.metadata.creationTimestamp, now),
      String(info?.['kubeletVersion'] ?? ''),
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      String(info?.['osImage'] ?? '<unknown>'),
      String(info?.['kernelVersion'] ?? '<unknown>'),
      String(info?.['containerRuntimeVersion'] ?? '<unknown>'),
    ];
  },
  selectableFields: (node) => ({ 'spec.unschedulable': String(recordAt(node, 'spec')?.['unschedulable'] ?? false) }),
};
