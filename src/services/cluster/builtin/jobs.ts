/**
 * batch/v1 Job behaviour: the selector and labels the apiserver generates (upstream
 * `pkg/registry/batch/job/strategy.go`), defaults, template checks, and the `kubectl get jobs`
 * columns. No job controller runs: a Job starts no Pod and never completes.
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { selectorText } from '../resources/label-selector-object.ts';
import { defaultPodSpec, listOf, recordAt, validatePodSpec } from '../resources/pod-spec.ts';

function generateSelector(job: BuiltinObject): void {
  const spec = recordAt(job, 'spec');
  if (spec === undefined || spec['manualSelector'] === true) return;
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  const template = recordAt(spec, 'template');
  if (template !== undefined) {
    template['metadata'] ??= {};
    const metadata = template['metadata'] as Record<string, unknown>;
    metadata['labels'] = {
      ...(metadata['labels'] as Record<string, string> | undefined),
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    };
  }
  spec['selector'] = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
}

/** labelsFromTemplate is SetDefaults_Job's: a Job without labels carries its pod template's. */
function labelsFromTemplate(job: BuiltinObject): void {
  const labels = recordAt(job, 'spec', 'template', 'metadata')?.['labels'];
  if (labels !== undefined && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...(labels as Record<string, string>) };
}

function defaults(job: BuiltinObject): void {
  const spec = recordAt(job, 'spec');
  if (spec === undefined) return;
  // SetDefaults_Job: a job with neither completions nor parallelism runs one pod to completion.
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) spec['completions'] = 1;
  spec['parallelism'] ??= 1;
  spec['backoffLimit'] ??= 6;
  labelsFromTemplate(job);
  spec['completionMode'] ??= 'NonIndexed';
  spec['suspend'] ??= false;
  const podFailurePolicy = recordAt(spec, 'podFailurePolicy');
  for (const rule of listOf(podFailurePolicy?.['rules'])) {
    for (const condition of listOf(rule['onPodConditions'])) if ((condition['status'] ?? '') === '') condition['status'] = 'True';
  }
  spec['podReplacementPolicy'] ??= podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
  defaultPodSpec(recordAt(spec, 'template', 'spec'));
}

function jobStatus(job: BuiltinObject): string {
  const conditions = listOf(recordAt(job, 'status')?.['conditions']).filter((condition) => condition['status'] === 'True');
  for (const type of ['Failed', 'Complete', 'Suspended', 'FailureTarget', 'SuccessCriteriaMet']) {
    if (conditions.some((condition) => condition['type'] === type)) return type === 'FailureTarget' ? 'FailureTarget' : type;
  }
  return job.metadata.deletionTimestamp === undefined ? 'Running' : 'Terminating';
}

/** jobBehaviour is Job's part of the generic strategy. */
export const jobBehaviour: KindBehaviour = {
  prepareForCreate(job) {
    // Defaulting runs on the decoded body, before the selector is generated, and again when the
    // stored object is read back: a Job without labels of its own or in its template ends up
    // with the generated ones.
    labelsFromTemplate(job);
    generateSelector(job);
    defaults(job);
  },
  prepareForUpdate: (job) => defaults(job),
  validate: (job) => validatePodSpec(recordAt(job, 'spec', 'template', 'spec'), 'spec.template.spec', ['OnFailure', 'Never']),
  tableColumns: [
    NAME_COLUMN,
    column('Status', 'Status of the job.'),
    column('Completions', 'The desired number of successfully finished pods the job should be run with.'),
    column('Duration', 'Time required to complete the job.'),
    AGE_COLUMN,
    column('Containers', 'Names of each container in the template.', 1),
    column('Images', 'Images referenced by each container in the template.', 1),
    column('Selector', 'A label query over pods that should match the pod count.', 1),
  ],
  tableRow(job, now) {
    const spec = recordAt(job, 'spec');
    const status = recordAt(job, 'status');
    const succeeded = typeof status?.['succeeded'] === 'number' ? status['succeeded'] : 0;
    const completions =
      typeof spec?.['completions'] === 'number' ? `${succeeded}/${spec['completions']}` : `${succeeded}/1 of ${String(spec?.['parallelism'] ?? 1)}`;
    const start = typeof status?.['startTime'] === 'string' ? Date.parse(status['startTime']) : undefined;
    const end = typeof status?.['completionTime'] === 'string' ? Date.parse(status['completionTime']) : now;
    const containers = listOf(recordAt(spec, 'template', 'spec')?.['containers']);
    return [
      job.metadata.name ?? '',
      jobStatus(job),
      completions,
      start === undefined ? '' : ageSince(new Date(start).toISOString(), end),
      ageSince(job.metadata.creationTimestamp, now),
      containers.map((container) => String(container['name'] ?? '')).join(','),
      containers.map((container) => String(container['image'] ?? '')).join(','),
      selectorText(recordAt(spec, 'selector')),
    ];
  },
  selectableFields: (job) => ({ 'status.successful': String(recordAt(job, 'status')?.['succeeded'] ?? 0) }),
};
