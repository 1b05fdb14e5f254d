/**
 * The Job controller (upstream `pkg/controller/job/job_controller.go`, 1.32): Pods from the
 * template with the `batch.kubernetes.io/job-tracking` finalizer, up to `parallelism` active and
 * no more than the completions left (Indexed Jobs: one Pod per pending index, named
 * `<job>-<index>-…`); a finished Pod is counted into `status.succeeded`/`failed` as its finalizer
 * is removed; failures are retried after 10 s·2^(n−1) (at most 6 min) of the clock until
 * `backoffLimit` (restarts of OnFailure Pods count); `activeDeadlineSeconds` on the clock; the
 * 1.32 terminal conditions (SuccessCriteriaMet then Complete, FailureTarget then Failed) with
 * their reasons, messages and Events; `suspend` deletes the active Pods.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, controllerOf, JOB_TYPE, JOBS, PODS } from './cluster-access.ts';
import { conditionOf, isPodReady, isTerminal, phaseOf, setCondition } from './pod-conditions.ts';
import { CONTROLLER_MANAGER, podFromTemplate } from './replica-sets.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

const COMPONENT = 'job-controller';
/** TRACKING_FINALIZER holds a Job's Pod until the controller has counted it. */
export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
const INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
const BACKOFF_BASE_MS = 10_000;
const BACKOFF_MAX_MS = 360_000;

/** isFinished is true for a Job with a True Complete or Failed condition. */
export function isJobFinished(job: KubeObject): 'Complete' | 'Failed' | undefined {
  if (conditionOf(job, 'Complete')?.['status'] === 'True') return 'Complete';
  if (conditionOf(job, 'Failed')?.['status'] === 'True') return 'Failed';
  return undefined;
}

/** compressIndexes writes succeeded indexes as the controller does: `0-2,4`. */
export function compressIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end++;
    ranges.push(start === end ? String(sorted[start]) : `${sorted[start]}-${sorted[end]}`);
    start = end + 1;
  }
  return ranges.join(',');
}

function parseIndexes(text: unknown): Set<number> {
  const indexes = new Set<number>();
  for (const part of String(text ?? '').split(',')) {
    if (part === '') continue;
    const [from, to = from] = part.split('-').map(Number);
    for (let index = from ?? 0; index <= (to ?? 0); index++) indexes.add(index);
  }
  return indexes;
}

function indexOf(pod: KubeObject): number | undefined {
  const text = pod.metadata.annotations?.[INDEX_KEY] ?? pod.metadata.labels?.[INDEX_KEY];
  return text === undefined ? undefined : Number(text);
}

function restartsOf(pod: KubeObject): number {
  return listOf(recordAt(pod, 'status')?.['containerStatuses']).reduce((sum, entry) => sum + Number(entry['restartCount'] ?? 0), 0);
}

function finishedAt(pod: KubeObject): number {
  const times = listOf(recordAt(pod, 'status')?.['containerStatuses'])
    .map((entry) => Date.parse(String(recordAt(entry, 'state', 'terminated')?.['finishedAt'] ?? '')))
    .filter((time) => !Number.isNaN(time));
  return times.length === 0 ? 0 : Math.max(...times);
}

export class JobController implements Reconciler {
  readonly name = COMPONENT;

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {}

  async sync(key: string): Promise<void> {
    const live = await this.access.liveByKey(JOBS, key);
    if (live === undefined) return;
    const { namespace, object: job } = live;
    const uid = job.metadata.uid ?? '';
    const pods = (await this.access.list(PODS, namespace)).filter((pod) => controllerOf(pod) === uid);
    const now = this.access.now();
    const time = formatTime(now);
    const spec = recordAt(job, 'spec') ?? {};
    const status = (recordAt(job, 'status') ?? {}) as Json;
    // Count the Pods that finished since the last sync, releasing them (their finalizer goes).
    let succeeded = Number(status['succeeded'] ?? 0);
    let failed = Number(status['failed'] ?? 0);
    const completed = parseIndexes(status['completedIndexes']);
    for (const pod of pods) {
      if (!isTerminal(pod) && pod.metadata.deletionTimestamp === undefined) continue;
      if (!(pod.metadata.finalizers ?? []).includes(TRACKING_FINALIZER)) continue;
      const released = await this.access.update(
        PODS,
        namespace,
        pod.metadata.name ?? '',
        (object) => {
          object.metadata.finalizers = (object.metadata.finalizers ?? []).filter((finalizer) => finalizer !== TRACKING_FINALIZER);
        },
        CONTROLLER_MANAGER,
      );
      if (released === undefined && !isTerminal(pod)) continue;
      if (phaseOf(pod) === 'Succeeded') {
        succeeded++;
        const index = indexOf(pod);
        if (index !== undefined) completed.add(index);
      } else failed++;
    }
    const finished = isJobFinished(job);
    const active = pods.filter((pod) => !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined);
    const terminating = pods.filter((pod) => !isTerminal(pod) && pod.metadata.deletionTimestamp !== undefined).length;
    const indexed = spec['completionMode'] === 'Indexed';
    const completions = spec['completions'] as number | undefined;
    const parallelism = Number(spec['parallelism'] ?? 1);
    const suspended = spec['suspend'] === true;
    const startTime = (status['startTime'] as string | undefined) ?? (suspended || finished !== undefined ? undefined : time);
    const conditions: Json[] = [];
    let failure: { reason: string; message: string } | undefined;
    if (finished === undefined) {
      const restarts =
        spec['template'] !== undefined && recordAt(spec, 'template', 'spec')?.['restartPolicy'] === 'OnFailure'
          ? active.reduce((sum, pod) => sum + restartsOf(pod), 0)
          : 0;
      const deadline = spec['activeDeadlineSeconds'] as number | undefined;
      const target = conditionOf(job, 'FailureTarget');
      if (target?.['status'] === 'True') failure = { reason: String(target['reason']), message: String(target['message']) };
      else if (failed + restarts > Number(spec['backoffLimit'] ?? 6))
        failure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
      else if (deadline !== undefined && startTime !== undefined && Date.parse(startTime) + deadline * 1000 <= now)
        failure = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else if (deadline !== undefined && startTime !== undefined) this.queue.after(Date.parse(startTime) + deadline * 1000 - now, this, key);
    }
    const done = indexed ? completed.size >= (completions ?? 0) : completions === undefined ? succeeded > 0 && active.length === 0 : succeeded >= completions;
    if (finished === undefined && failure !== undefined) {
      conditions.push({
        type: 'FailureTarget',
        status: 'True',
        lastProbeTime: time,
        lastTransitionTime: time,
        reason: failure.reason,
        message: failure.message,
      });
      await this.#deleteAll(job, active);
      if (active.length === 0 && terminating === 0) {
        conditions.push({ type: 'Failed', status: 'True', lastProbeTime: time, lastTransitionTime: time, reason: failure.reason, message: failure.message });
        await this.access.event(job, JOB_TYPE, 'Warning', failure.reason, failure.message, { component: COMPONENT });
      }
    } else if (finished === undefined && done) {
      conditions.push({
        type: 'SuccessCriteriaMet',
        status: 'True',
        lastProbeTime: time,
        lastTransitionTime: time,
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      });
      await this.#deleteAll(job, active);
      if (active.length === 0 && terminating === 0) {
        conditions.push({
          type: 'Complete',
          status: 'True',
          lastProbeTime: time,
          lastTransitionTime: time,
          reason: 'CompletionsReached',
          message: 'Reached expected number of succeeded pods',
        });
        await this.access.event(job, JOB_TYPE, 'Normal', 'Completed', 'Job completed', { component: COMPONENT });
      }
    } else if (finished === undefined && suspended) {
      await this.#deleteAll(job, active);
      if (conditionOf(job, 'Suspended')?.['status'] !== 'True') {
        conditions.push({ type: 'Suspended', status: 'True', lastProbeTime: time, lastTransitionTime: time, reason: 'JobSuspended', message: 'Job suspended' });
        await this.access.event(job, JOB_TYPE, 'Normal', 'Suspended', 'Job suspended', { component: COMPONENT });
      }
    } else if (finished === undefined) {
      if (conditionOf(job, 'Suspended')?.['status'] === 'True') {
        conditions.push({ type: 'Suspended', status: 'False', lastProbeTime: time, lastTransitionTime: time, reason: 'JobResumed', message: 'Job resumed' });
        await this.access.event(job, JOB_TYPE, 'Normal', 'Resumed', 'Job resumed', { component: COMPONENT });
      }
      await this.#createWanted(job, active, pods, { indexed, completions, parallelism, succeeded, failed, completed, now, key });
    }
    const complete = conditions.some((condition) => condition['type'] === 'Complete');
    await this.access.updateStatus(
      JOBS,
      namespace,
      job.metadata.name ?? '',
      (object) => {
        const current = (object['status'] ?? {}) as Json;
        object['status'] = {
          ...current,
          ...(startTime === undefined ? {} : { startTime }),
          active: finished === undefined ? active.length : 0,
          ready: active.filter(isPodReady).length,
          terminating,
          succeeded,
          failed,
          ...(indexed ? { completedIndexes: compressIndexes(completed) } : {}),
          uncountedTerminatedPods: {},
          ...(complete ? { completionTime: time } : {}),
        };
        for (const condition of conditions) setCondition(object, condition);
      },
      CONTROLLER_MANAGER,
    );
  }

  async #deleteAll(job: BuiltinObject, pods: readonly BuiltinObject[]): Promise<void> {
    for (const pod of pods) {
      if (await this.access.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid))
        await this.access.event(job, JOB_TYPE, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, { component: COMPONENT });
    }
  }

  /** #createWanted starts Pods up to parallelism and the completions left, after the failure backoff. */
  async #createWanted(
    job: BuiltinObject,
    active: readonly BuiltinObject[],
    pods: readonly BuiltinObject[],
    counts: {
      readonly indexed: boolean;
      readonly completions: number | undefined;
      readonly parallelism: number;
      readonly succeeded: number;
      readonly failed: number;
      readonly completed: ReadonlySet<number>;
      readonly now: number;
      readonly key: string;
    },
  ): Promise<void> {
    if (counts.failed > 0) {
      const lastFailure = Math.max(0, ...pods.filter((pod) => phaseOf(pod) === 'Failed').map(finishedAt));
      const due = lastFailure + Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (counts.failed - 1));
      if (lastFailure > 0 && due > counts.now) {
        this.queue.after(due - counts.now, this, counts.key);
        return;
      }
    }
    const template = recordAt(job, 'spec', 'template');
    const name = job.metadata.name ?? '';
    const starts: (number | undefined)[] = [];
    if (counts.indexed) {
      const running = new Set(active.map(indexOf));
      for (let index = 0; index < (counts.completions ?? 0) && starts.length + active.length < counts.parallelism; index++)
        if (!counts.completed.has(index) && !running.has(index)) starts.push(index);
    } else {
      const left = counts.completions === undefined ? (counts.succeeded > 0 ? 0 : counts.parallelism) : counts.completions - counts.succeeded;
      for (let n = active.length; n < Math.min(counts.parallelism, left); n++) starts.push(undefined);
    }
    for (const index of starts) {
      const pod = podFromTemplate(template, job, JOB_TYPE, index === undefined ? `${name}-` : `${name}-${index}-`);
      pod.metadata.finalizers = [...(pod.metadata.finalizers ?? []), TRACKING_FINALIZER];
      if (index !== undefined) {
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [INDEX_KEY]: String(index) };
        pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [INDEX_KEY]: String(index) };
        (pod['spec'] as Json)['hostname'] = `${name}-${index}`;
      }
      const created = await this.access.create(PODS, job.metadata.namespace, pod, CONTROLLER_MANAGER);
      await this.access.event(job, JOB_TYPE, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`, { component: COMPONENT });
    }
  }
}
