/**
 * Behaviour of the kinds with a pod template and a selector (Deployment, ReplicaSet, StatefulSet,
 * DaemonSet, ReplicationController, CronJob): defaults, the selector rules and template checks of
 * upstream `pkg/apis/apps/validation`, and the `kubectl get deploy|rs` columns (the others' are in
 * workload-columns.ts). No controller runs here: without `--workloads simulate` (../simulation/)
 * a Deployment makes no ReplicaSet and no Pod, and its status stays as written.
 */
import { GoLiteral, invalid, notSupported, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { goStringMap, selectorIsEmpty, selectorMatches, selectorText } from '../resources/label-selector-object.ts';
import { defaultPodSpec, listOf, recordAt, validatePodSpec } from '../resources/pod-spec.ts';

/** WorkloadShort names the kinds sharing this file: the word their selector error uses. */
type WorkloadShort = 'deploy' | 'rs' | 'sts' | 'ds' | 'rc' | 'cj';

const EMPTY_SELECTOR_NOUN: Readonly<Record<WorkloadShort, string>> = {
  deploy: 'deployment',
  rs: 'deployment',
  sts: 'statefulset',
  ds: 'daemonset',
  rc: 'replicationcontroller',
  cj: 'cronjob',
};

function templatePath(short: WorkloadShort): string[] {
  return short === 'cj' ? ['spec', 'jobTemplate', 'spec', 'template'] : ['spec', 'template'];
}

function defaults(object: BuiltinObject, short: WorkloadShort): void {
  const spec = recordAt(object, 'spec');
  if (spec === undefined) return;
  if (short === 'deploy' || short === 'rs' || short === 'sts' || short === 'rc') spec['replicas'] ??= 1;
  if (short === 'deploy') {
    spec['strategy'] ??= {};
    const strategy = spec['strategy'] as Record<string, unknown>;
    if ((strategy['type'] ?? '') === '') strategy['type'] = 'RollingUpdate';
    if (strategy['type'] === 'RollingUpdate') {
      strategy['rollingUpdate'] ??= {};
      const rollingUpdate = strategy['rollingUpdate'] as Record<string, unknown>;
      rollingUpdate['maxUnavailable'] ??= '25%';
      rollingUpdate['maxSurge'] ??= '25%';
    }
    spec['revisionHistoryLimit'] ??= 10;
    spec['progressDeadlineSeconds'] ??= 600;
  }
  if (short === 'sts') {
    spec['podManagementPolicy'] ??= 'OrderedReady';
    spec['updateStrategy'] ??= {};
    const strategy = spec['updateStrategy'] as Record<string, unknown>;
    if ((strategy['type'] ?? '') === '') {
      strategy['type'] = 'RollingUpdate';
      strategy['rollingUpdate'] ??= {};
    }
    const rollingUpdate = strategy['rollingUpdate'];
    if (strategy['type'] === 'RollingUpdate' && typeof rollingUpdate === 'object' && rollingUpdate !== null) {
      (rollingUpdate as Record<string, unknown>)['partition'] ??= 0;
    }
    // StatefulSetAutoDeletePVC is beta and on in 1.32.
    spec['persistentVolumeClaimRetentionPolicy'] ??= {};
    const retention = spec['persistentVolumeClaimRetentionPolicy'] as Record<string, unknown>;
    if ((retention['whenDeleted'] ?? '') === '') retention['whenDeleted'] = 'Retain';
    if ((retention['whenScaled'] ?? '') === '') retention['whenScaled'] = 'Retain';
    spec['revisionHistoryLimit'] ??= 10;
  }
  if (short === 'ds') {
    spec['updateStrategy'] ??= {};
    const strategy = spec['updateStrategy'] as Record<string, unknown>;
    if ((strategy['type'] ?? '') === '') strategy['type'] = 'RollingUpdate';
    if (strategy['type'] === 'RollingUpdate') {
      strategy['rollingUpdate'] ??= {};
      const rollingUpdate = strategy['rollingUpdate'] as Record<string, unknown>;
      rollingUpdate['maxUnavailable'] ??= 1;
      rollingUpdate['maxSurge'] ??= 0;
    }
    spec['revisionHistoryLimit'] ??= 10;
  }
  if (short === 'cj') {
    spec['concurrencyPolicy'] ??= 'Allow';
    spec['suspend'] ??= false;
    spec['successfulJobsHistoryLimit'] ??= 3;
    spec['failedJobsHistoryLimit'] ??= 1;
  }
  if (short === 'rc') {
    // A ReplicationController without a selector selects its template's labels.
    const labels = recordAt(object, 'spec', 'template', 'metadata')?.['labels'];
    if (spec['selector'] === undefined && labels !== undefined) spec['selector'] = { ...(labels as Record<string, string>) };
    // …and, without labels of its own, carries them (SetDefaults_ReplicationController).
    if (labels !== undefined && Object.keys(object.metadata.labels ?? {}).length === 0) object.metadata.labels = { ...(labels as Record<string, string>) };
  }
  defaultPodSpec(recordAt(object, ...templatePath(short), 'spec'));
}

function validate(object: BuiltinObject, short: WorkloadShort): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, 'spec');
  if (spec === undefined) return errors;
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) errors.push(invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  const path = templatePath(short);
  const template = recordAt(object, ...path);
  const pathText = path.join('.');
  if (short !== 'cj' && short !== 'rc') {
    const selector = recordAt(spec, 'selector');
    if (selector !== undefined) {
      if (selectorIsEmpty(selector)) {
        errors.push(invalid('spec.selector', new GoLiteral(goSelector(selector)), `empty selector is invalid for ${EMPTY_SELECTOR_NOUN[short]}`));
      } else if (template !== undefined) {
        const labels = recordAt(template, 'metadata')?.['labels'] as Record<string, string> | undefined;
        if (!selectorMatches(selector, labels ?? {})) {
          errors.push(invalid(`${pathText}.metadata.labels`, new GoLiteral(goStringMap(labels)), '`selector` does not match template `labels`'));
        }
      }
    }
  }
  if (template !== undefined) {
    const always = short === 'deploy' || short === 'rs' || short === 'sts' || short === 'ds' || short === 'rc';
    const policy = recordAt(template, 'spec')?.['restartPolicy'];
    if (always && typeof policy === 'string' && policy !== 'Always') errors.push(notSupported(`${pathText}.spec.restartPolicy`, policy, ['Always']));
    else errors.push(...validatePodSpec(recordAt(template, 'spec'), `${pathText}.spec`, short === 'cj' ? ['OnFailure', 'Never'] : undefined));
  }
  return errors;
}

/** goSelector prints a LabelSelector as Go's `%#v` of `*metav1.LabelSelector` does (the empty case kubectl users see). */
function goSelector(selector: Record<string, unknown>): string {
  const labels = selector['matchLabels'] as Record<string, string> | undefined;
  const expressions = selector['matchExpressions'] as unknown[] | undefined;
  return `&v1.LabelSelector{MatchLabels:${goStringMap(labels)}, MatchExpressions:${expressions === undefined ? '[]v1.LabelSelectorRequirement(nil)' : '[]v1.LabelSelectorRequirement{}'}}`;
}

function containersOf(object: BuiltinObject, short: WorkloadShort): Record<string, unknown>[] {
  return listOf(recordAt(object, ...templatePath(short), 'spec')?.['containers']);
}

function wideCells(object: BuiltinObject, short: WorkloadShort): string[] {
  const containers = containersOf(object, short);
  return [
    containers.map((container) => String(container['name'] ?? '')).join(','),
    containers.map((container) => String(container['image'] ?? '')).join(','),
    selectorText(recordAt(object, 'spec', 'selector')),
  ];
}

const WIDE_COLUMNS = [
  column('Containers', 'Names of each container in the template.', 1),
  column('Images', 'Images referenced by each container in the template.', 1),
  column('Selector', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
];

function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** workloadBehaviour is the shared part for a kind with a pod template. */
export function workloadBehaviour(short: WorkloadShort): KindBehaviour {
  return {
    prepareForCreate: (object) => defaults(object, short),
    prepareForUpdate: (object) => defaults(object, short),
    validate: (object) => validate(object, short),
  };
}

/** deploymentBehaviour adds the `kubectl get deployments` columns. */
export const deploymentBehaviour: KindBehaviour = {
  ...workloadBehaviour('deploy'),
  tableColumns: [
    NAME_COLUMN,
    column('Ready', 'Number of the pod with ready state'),
    column('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', 0, 'integer'),
    column('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', 0, 'integer'),
    AGE_COLUMN,
    ...WIDE_COLUMNS,
  ],
  tableRow(object, now) {
    const status = recordAt(object, 'status');
    return [
      object.metadata.name ?? '',
      `${count(status?.['readyReplicas'])}/${count(recordAt(object, 'spec')?.['replicas'])}`,
      count(status?.['updatedReplicas']),
      count(status?.['availableReplicas']),
      ageSince(object.metadata.creationTimestamp, now),
      ...wideCells(object, 'deploy'),
    ];
  },
};

/** replicaSetBehaviour adds the `kubectl get replicasets` columns. */
export const replicaSetBehaviour: KindBehaviour = {
  ...workloadBehaviour('rs'),
  tableColumns: [
    NAME_COLUMN,
    column('Desired', 'Replicas is the number of desired replicas.', 0, 'integer'),
    column('Current', 'Replicas is the most recently observed number of replicas.', 0, 'integer'),
    column('Ready', 'The number of ready replicas for this replica set.', 0, 'integer'),
    AGE_COLUMN,
    ...WIDE_COLUMNS,
  ],
  tableRow(object, now) {
    const status = recordAt(object, 'status');
    return [
      object.metadata.name ?? '',
      count(recordAt(object, 'spec')?.['replicas']),
      count(status?.['replicas']),
      count(status?.['readyReplicas']),
      ageSince(object.metadata.creationTimestamp, now),
      ...wideCells(object, 'rs'),
    ];
  },
};
