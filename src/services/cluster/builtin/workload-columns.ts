/**
 * The `kubectl get` columns of StatefulSets, DaemonSets, ReplicationControllers and CronJobs, as
 * the apiserver's Table printer (upstream `pkg/printers/internalversion/printers.go`
 * printStatefulSet, printDaemonSet, printReplicationController, printCronJob) fills them: the
 * server sends every column, kubectl shows those of priority 0 unless `-o wide`.
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { selectorText } from '../resources/label-selector-object.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { AGE_COLUMN, type BuiltinObject, column, type KindBehaviour, NAME_COLUMN } from './behaviour.ts';
import { workloadBehaviour } from './workloads.ts';

const CONTAINERS_COLUMN = column('Containers', 'Names of each container in the template.', 1);
const IMAGES_COLUMN = column('Images', 'Images referenced by each container in the template.', 1);

function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** containerCells are layoutContainerCells' two cells: the template's container names and images. */
function containerCells(template: Record<string, unknown> | undefined): string[] {
  const containers = listOf(recordAt(template, 'spec')?.['containers']);
  return [containers.map((container) => String(container['name'] ?? '')).join(','), containers.map((container) => String(container['image'] ?? '')).join(',')];
}

/** formatLabels is labels.FormatLabels: `k=v` pairs by key, `<none>` when empty. */
function formatLabels(labels: unknown): string {
  const map = (labels ?? {}) as Record<string, string>;
  const keys = Object.keys(map).sort();
  return keys.length === 0 ? '<none>' : keys.map((key) => `${key}=${map[key]}`).join(',');
}

/** statefulSetBehaviour adds the `kubectl get statefulsets` columns (READY is ready/desired). */
export const statefulSetBehaviour: KindBehaviour = {
  ...workloadBehaviour('sts'),
  tableColumns: [NAME_COLUMN, column('Ready', 'Number of the pod with ready state'), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
  tableRow(object: BuiltinObject, now: number) {
    const spec = recordAt(object, 'spec');
    return [
      object.metadata.name ?? '',
      `${count(recordAt(object, 'status')?.['readyReplicas'])}/${count(spec?.['replicas'])}`,
      ageSince(object.metadata.creationTimestamp, now),
      ...containerCells(recordAt(spec, 'template')),
    ];
  },
};

/** daemonSetBehaviour adds the `kubectl get daemonsets` columns. */
export const daemonSetBehaviour: KindBehaviour = {
  ...workloadBehaviour('ds'),
  tableColumns: [
    NAME_COLUMN,
    column(
      'Desired',
      'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
      0,
      'integer',
    ),
    column(
      'Current',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
      0,
      'integer',
    ),
    column(
      'Ready',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      0,
      'integer',
    ),
    column('Up-to-date', 'The total number of nodes that are running updated daemon pod', 0, 'integer'),
    column(
      'Available',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      0,
      'integer',
    ),
    column(
      'Node Selector',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    ),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column(
      'Selector',
      'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      1,
    ),
  ],
  tableRow(object: BuiltinObject, now: number) {
    const spec = recordAt(object, 'spec');
    const status = recordAt(object, 'status');
    const template = recordAt(spec, 'template');
    return [
      object.metadata.name ?? '',
      count(status?.['desiredNumberScheduled']),
      count(status?.['currentNumberScheduled']),
      count(status?.['numberReady']),
      count(status?.['updatedNumberScheduled']),
      count(status?.['numberAvailable']),
      formatLabels(recordAt(template, 'spec')?.['nodeSelector']),
      ageSince(object.metadata.creationTimestamp, now),
      ...containerCells(template),
      selectorText(recordAt(spec, 'selector')),
    ];
  },
};

/** replicationControllerBehaviour adds the `kubectl get replicationcontrollers` columns. */
export const replicationControllerBehaviour: KindBehaviour = {
  ...workloadBehaviour('rc'),
  tableColumns: [
    NAME_COLUMN,
    column(
      'Desired',
      'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      0,
      'integer',
    ),
    column(
      'Current',
      'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      0,
      'integer',
    ),
    column('Ready', 'The number of ready replicas for this replication controller.', 0, 'integer'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column(
      'Selector',
      'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      1,
    ),
  ],
  tableRow(object: BuiltinObject, now: number) {
    const spec = recordAt(object, 'spec');
    const status = recordAt(object, 'status');
    return [
      object.metadata.name ?? '',
      count(spec?.['replicas']),
      count(status?.['replicas']),
      count(status?.['readyReplicas']),
      ageSince(object.metadata.creationTimestamp, now),
      ...containerCells(recordAt(spec, 'template')),
      formatLabels(spec?.['selector']),
    ];
  },
};

/** cronJobBehaviour adds the `kubectl get cronjobs` columns (LAST SCHEDULE is an age, or `<none>`). */
export const cronJobBehaviour: KindBehaviour = {
  ...workloadBehaviour('cj'),
  tableColumns: [
    NAME_COLUMN,
    column('Schedule', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column(
      'Timezone',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process.',
    ),
    column(
      'Suspend',
      'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions. Defaults to false.',
      0,
      'boolean',
    ),
    column('Active', 'A list of pointers to currently running jobs.', 0, 'integer'),
    column('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column(
      'Selector',
      'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      1,
    ),
  ],
  tableRow(object: BuiltinObject, now: number) {
    const spec = recordAt(object, 'spec');
    const status = recordAt(object, 'status');
    const jobSpec = recordAt(spec, 'jobTemplate', 'spec');
    const last = status?.['lastScheduleTime'];
    return [
      object.metadata.name ?? '',
      String(spec?.['schedule'] ?? ''),
      typeof spec?.['timeZone'] === 'string' ? spec['timeZone'] : '<none>',
      // printBoolPtr: a cell of text, though the column says boolean.
      spec?.['suspend'] === true ? 'True' : 'False',
      listOf(status?.['active']).length,
      typeof last === 'string' ? ageSince(last, now) : '<none>',
      ageSince(object.metadata.creationTimestamp, now),
      ...containerCells(recordAt(jobSpec, 'template')),
      selectorText(recordAt(jobSpec, 'selector')),
    ];
  },
};
