/**
 * v1 Pod and PodTemplate behaviour on the generic strategy: PodSpec defaults and validation, the
 * `Pending` status a new Pod starts with (no scheduler or kubelet runs here, so it stays so), and
 * the `kubectl get pods` columns.
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { defaultPodSpec, listOf, recordAt, validatePodSpec } from '../resources/pod-spec.ts';

/** podBehaviour is Pod's part of the generic strategy. */
export const podBehaviour: KindBehaviour = {
  prepareForCreate(pod) {
    defaultPodSpec(pod['spec']);
    pod['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
  },
  prepareForUpdate(pod) {
    defaultPodSpec(pod['spec']);
  },
  validate: (pod) => validatePodSpec(pod['spec'], 'spec'),
  tableColumns: [
    NAME_COLUMN,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE_COLUMN,
    column('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    column(
      'Node',
      'NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.',
      1,
    ),
    column(
      'Nominated Node',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
      1,
    ),
    column('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  tableRow(pod, now) {
    const containers = listOf(recordAt(pod, 'spec')?.['containers']);
    const statuses = listOf(recordAt(pod, 'status')?.['containerStatuses']);
    const ready = statuses.filter((status) => status['ready'] === true).length;
    const restarts = statuses.reduce((sum, status) => sum + (typeof status['restartCount'] === 'number' ? status['restartCount'] : 0), 0);
    const status = recordAt(pod, 'status');
    const reason = pod.metadata.deletionTimestamp !== undefined ? 'Terminating' : String(status?.['reason'] ?? status?.['phase'] ?? '');
    const gates = listOf(recordAt(pod, 'spec')?.['readinessGates']);
    return [
      pod.metadata.name ?? '',
      `${ready}/${containers.length}`,
      reason,
      restarts,
      ageSince(pod.metadata.creationTimestamp, now),
      String(status?.['podIP'] ?? '<none>'),
      String(recordAt(pod, 'spec')?.['nodeName'] ?? '<none>'),
      String(status?.['nominatedNodeName'] ?? '<none>'),
      gates.length === 0 ? '<none>' : `0/${gates.length}`,
    ];
  },
  selectableFields: (pod) => ({
    'spec.nodeName': String(recordAt(pod, 'spec')?.['nodeName'] ?? ''),
    'spec.restartPolicy': String(recordAt(pod, 'spec')?.['restartPolicy'] ?? ''),
    'spec.schedulerName': String(recordAt(pod, 'spec')?.['schedulerName'] ?? ''),
    'spec.serviceAccountName': String(recordAt(pod, 'spec')?.['serviceAccountName'] ?? ''),
    'spec.hostNetwork': String(recordAt(pod, 'spec')?.['hostNetwork'] ?? false),
    'status.phase': String(recordAt(pod, 'status')?.['phase'] ?? ''),
    'status.podIP': String(recordAt(pod, 'status')?.['podIP'] ?? ''),
    'status.nominatedNodeName': String(recordAt(pod, 'status')?.['nominatedNodeName'] ?? ''),
  }),
};

/** podTemplateBehaviour is PodTemplate's part: the template's PodSpec rules and defaults. */
export const podTemplateBehaviour: KindBehaviour = {
  prepareForCreate: (template) => defaultPodSpec(recordAt(template, 'template', 'spec')),
  prepareForUpdate: (template) => defaultPodSpec(recordAt(template, 'template', 'spec')),
  validate: (template) => validatePodSpec(recordAt(template, 'template', 'spec'), 'template.spec'),
};
