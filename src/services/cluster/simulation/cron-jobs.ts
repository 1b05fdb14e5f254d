/**
 * The CronJob controller (upstream `pkg/controller/cronjob/{cronjob_controllerv2.go,utils.go}`)
 * on fogbank's clock: at the latest unmet schedule time since `lastScheduleTime` (or creation) it
 * creates the Job `<cronjob>-<minutes since the epoch>` from `jobTemplate` with the scheduled-time
 * annotation and a controller reference, honouring `suspend`, `startingDeadlineSeconds` and
 * `concurrencyPolicy` (Allow, Forbid, Replace); it keeps `status.active`, `lastScheduleTime` and
 * `lastSuccessfulTime`, deletes finished Jobs beyond the history limits, writes the controller's
 * Events, and waits on the clock for the next time — so `clock advance` creates Jobs.
 */
import { parseGoDuration } from '../../../lib/duration.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { formatTime } from '../apimachinery/registry.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type ClusterAccess, CRON_JOB_TYPE, CRON_JOBS, controllerOf, controllerRef, JOBS } from './cluster-access.ts';
import { CronParseError, parseCronSchedule } from './cron-schedule.ts';
import { isJobFinished } from './jobs.ts';
import { CONTROLLER_MANAGER } from './replica-sets.ts';
import type { Reconciler, WorkQueue } from './work-queue.ts';

type Json = Record<string, unknown>;

const COMPONENT = 'cronjob-controller';
const SCHEDULED_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** MAX_MISSED is how many missed times the controller walks before it warns (TooManyMissedTimes). */
const MAX_MISSED = 100;

function everyDuration(text: string): number | undefined {
  const parsed = parseGoDuration(text);
  return 'ms' in parsed ? parsed.ms : undefined;
}

function jobRef(job: KubeObject): Json {
  return {
    kind: 'Job',
    namespace: job.metadata.namespace,
    name: job.metadata.name,
    uid: job.metadata.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata.resourceVersion,
  };
}

export class CronJobController implements Reconciler {
  readonly name = COMPONENT;

  constructor(
    readonly access: ClusterAccess,
    readonly queue: WorkQueue,
  ) {}

  async sync(key: string): Promise<void> {
    const live = await this.access.liveByKey(CRON_JOBS, key);
    if (live === undefined) return;
    const { namespace, object: cronJob } = live;
    const spec = recordAt(cronJob, 'spec') ?? {};
    const status = (recordAt(cronJob, 'status') ?? {}) as Json;
    const now = this.access.now();
    const uid = cronJob.metadata.uid ?? '';
    const jobs = (await this.access.list(JOBS, namespace)).filter((job) => controllerOf(job) === uid);
    // Active list: the running Jobs it made (a finished one is seen once, with its event).
    const activeNames = new Set(listOf(status['active']).map((ref) => String(ref['name'] ?? '')));
    let lastSuccessful = status['lastSuccessfulTime'] as string | undefined;
    for (const job of jobs) {
      const finished = isJobFinished(job);
      if (finished === undefined) continue;
      if (activeNames.has(job.metadata.name ?? ''))
        await this.access.event(cronJob, CRON_JOB_TYPE, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, status: ${finished}`, {
          component: COMPONENT,
        });
      const completion = recordAt(job, 'status')?.['completionTime'] as string | undefined;
      if (finished === 'Complete' && completion !== undefined && (lastSuccessful === undefined || Date.parse(completion) > Date.parse(lastSuccessful)))
        lastSuccessful = completion;
    }
    let running = jobs.filter((job) => isJobFinished(job) === undefined);
    await this.#cleanup(cronJob, jobs);
    let schedule: ReturnType<typeof parseCronSchedule>;
    try {
      schedule = parseCronSchedule(String(spec['schedule'] ?? ''), everyDuration);
    } catch (error) {
      if (!(error instanceof CronParseError)) throw error;
      await this.access.event(
        cronJob,
        CRON_JOB_TYPE,
        'Warning',
        'UnparseableSchedule',
        `unparseable schedule: ${JSON.stringify(spec['schedule'])} : ${error.message}`,
        {
          component: COMPONENT,
        },
      );
      return;
    }
    let lastSchedule = status['lastScheduleTime'] as string | undefined;
    const suspended = spec['suspend'] === true;
    if (!suspended) {
      const since = Date.parse(lastSchedule ?? cronJob.metadata.creationTimestamp ?? formatTime(now));
      let scheduled: number | undefined;
      let missed = 0;
      for (let at = schedule.next(since); at !== undefined && at <= now; at = schedule.next(at)) {
        scheduled = at;
        if (++missed > MAX_MISSED) break;
      }
      if (missed > MAX_MISSED)
        await this.access.event(
          cronJob,
          CRON_JOB_TYPE,
          'Warning',
          'TooManyMissedTimes',
          `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`,
          { component: COMPONENT },
        );
      const deadline = spec['startingDeadlineSeconds'] as number | undefined;
      if (scheduled !== undefined && deadline !== undefined && scheduled + deadline * 1000 < now) {
        await this.access.event(
          cronJob,
          CRON_JOB_TYPE,
          'Warning',
          'MissSchedule',
          `Missed scheduled time to start a job: ${new Date(scheduled).toUTCString().replace('GMT', '+0000')}`,
          {
            component: COMPONENT,
          },
        );
        scheduled = undefined;
      }
      const policy = String(spec['concurrencyPolicy'] ?? 'Allow');
      if (scheduled !== undefined && policy === 'Forbid' && running.length > 0) {
        await this.access.event(
          cronJob,
          CRON_JOB_TYPE,
          'Normal',
          'JobAlreadyActive',
          'Not starting job because prior execution is running and concurrency policy is Forbid',
          {
            component: COMPONENT,
          },
        );
        scheduled = undefined;
      }
      if (scheduled !== undefined) {
        if (policy === 'Replace') {
          for (const job of running) {
            if (await this.access.delete(JOBS, namespace, job.metadata.name ?? '', job.metadata.uid))
              await this.access.event(cronJob, CRON_JOB_TYPE, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`, { component: COMPONENT });
          }
          running = [];
        }
        const created = await this.#create(cronJob, scheduled);
        if (created !== undefined) running = [...running, created];
        lastSchedule = formatTime(scheduled);
      }
      const next = schedule.next(now);
      if (next !== undefined) this.queue.after(next - now, this, key);
    }
    await this.access.updateStatus(
      CRON_JOBS,
      namespace,
      cronJob.metadata.name ?? '',
      (object) => {
        const current = (object['status'] ?? {}) as Json;
        const next: Json = { ...current };
        if (running.length > 0) next['active'] = running.map(jobRef);
        else delete next['active'];
        if (lastSchedule !== undefined) next['lastScheduleTime'] = lastSchedule;
        if (lastSuccessful !== undefined) next['lastSuccessfulTime'] = lastSuccessful;
        object['status'] = next;
      },
      CONTROLLER_MANAGER,
    );
  }

  /** #create makes the Job for `scheduled` (getJobFromTemplate2), undefined when it exists already. */
  async #create(cronJob: BuiltinObject, scheduled: number): Promise<BuiltinObject | undefined> {
    const template = recordAt(cronJob, 'spec', 'jobTemplate') ?? {};
    const metadata = (recordAt(template, 'metadata') ?? {}) as Json;
    const name = `${cronJob.metadata.name}-${Math.floor(scheduled / 60_000)}`;
    const body = {
      metadata: {
        name,
        ...(metadata['labels'] === undefined ? {} : { labels: { ...(metadata['labels'] as Record<string, string>) } }),
        annotations: { ...((metadata['annotations'] ?? {}) as Record<string, string>), [SCHEDULED_ANNOTATION]: formatTime(scheduled) },
        ownerReferences: [controllerRef(cronJob, CRON_JOB_TYPE)],
      },
      spec: structuredClone(recordAt(template, 'spec') ?? {}),
    } as KubeObject;
    try {
      const job = await this.access.create(JOBS, cronJob.metadata.namespace, body, CONTROLLER_MANAGER);
      await this.access.event(cronJob, CRON_JOB_TYPE, 'Normal', 'SuccessfulCreate', `Created job ${name}`, { component: COMPONENT });
      return job;
    } catch (error) {
      if (error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists') return undefined;
      await this.access.event(cronJob, CRON_JOB_TYPE, 'Warning', 'FailedCreate', `Error creating job: ${(error as Error).message}`, { component: COMPONENT });
      throw error;
    }
  }

  /** #cleanup deletes the oldest finished Jobs beyond successfulJobsHistoryLimit (3) and failedJobsHistoryLimit (1). */
  async #cleanup(cronJob: BuiltinObject, jobs: readonly BuiltinObject[]): Promise<void> {
    const spec = recordAt(cronJob, 'spec') ?? {};
    const limits = { Complete: Number(spec['successfulJobsHistoryLimit'] ?? 3), Failed: Number(spec['failedJobsHistoryLimit'] ?? 1) };
    for (const outcome of ['Complete', 'Failed'] as const) {
      const finished = jobs
        .filter((job) => isJobFinished(job) === outcome)
        .sort((a, b) => String(recordAt(a, 'status')?.['startTime'] ?? '').localeCompare(String(recordAt(b, 'status')?.['startTime'] ?? '')));
      for (const job of finished.slice(0, Math.max(0, finished.length - limits[outcome]))) {
        if (await this.access.delete(JOBS, job.metadata.namespace, job.metadata.name ?? '', job.metadata.uid))
          await this.access.event(cronJob, CRON_JOB_TYPE, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`, { component: COMPONENT });
      }
    }
  }
}
