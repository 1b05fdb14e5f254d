import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseGoDuration } from '../../../lib/duration.ts';
import { advanceFiring } from '../../../lib/controlled-clock.ts';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';
import { CronParseError, parseCronSchedule } from './cron-schedule.ts';
import { compressIndexes } from './jobs.ts';

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 500; attempt++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

const every = (text: string) => {
  const parsed = parseGoDuration(text);
  return 'ms' in parsed ? parsed.ms : undefined;
};

describe('cron schedules as robfig/cron reads them, and completed indexes', () => {
  const at = (iso: string) => Date.parse(iso);
  const next = (schedule: string, after: string) => new Date(parseCronSchedule(schedule, every).next(at(after)) ?? 0).toISOString();

  it('walks minutes, steps, ranges, names, descriptors and @every', () => {
    assert.equal(next('*/5 * * * *', '2025-01-01T00:03:10Z'), '2025-01-01T00:05:00.000Z');
    assert.equal(next('30 2 * * mon-fri', '2025-01-04T00:00:00Z'), '2025-01-06T02:30:00.000Z');
    assert.equal(next('0 0 1 jan *', '2025-03-01T00:00:00Z'), '2026-01-01T00:00:00.000Z');
    assert.equal(next('@hourly', '2025-01-01T00:00:00Z'), '2025-01-01T01:00:00.000Z');
    assert.equal(next('@every 90s', '2025-01-01T00:00:00Z'), '2025-01-01T00:01:30.000Z');
    // Both day fields restricted: either matches.
    assert.equal(next('0 0 13 * 5', '2025-06-01T00:00:00Z'), '2025-06-06T00:00:00.000Z');
  });

  it('refuses what robfig/cron refuses, in its words', () => {
    assert.throws(() => parseCronSchedule('* * *', every), new CronParseError('expected exactly 5 fields, found 3: [* * *]'));
    assert.throws(() => parseCronSchedule('61 * * * *', every), new CronParseError('end of range (61) above maximum (59): 61'));
    assert.throws(() => parseCronSchedule('@fortnightly', every), new CronParseError('unrecognized descriptor: @fortnightly'));
  });

  it('compresses indexes into ranges', () => {
    assert.equal(compressIndexes([4, 0, 1, 2, 7, 8]), '0-2,4,7-8');
  });
});

describe('--workloads simulate: Jobs and CronJobs on the clock', () => {
  let h: ClusterHarness;
  const get = async (path: string) => (await h.call('GET', path)).body;
  const advance = (ms: number) => advanceFiring(h.control.clock, h.control.timers, ms);
  const batch = '/apis/batch/v1/namespaces/default';
  const job = (name: string, spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}) => ({
    metadata: { name },
    spec: {
      template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } },
      ...spec,
    },
  });
  const conditionsOf = (object: { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }) =>
    (object.status?.conditions ?? []).map((condition) => `${condition.type}=${condition.status} ${condition.reason}: ${condition.message}`);
  /** stepUntil advances the clock a second at a time until `check` holds. */
  const stepUntil = async (path: string, check: (object: never) => boolean, what: string) => {
    for (let step = 0; step < 60; step++) {
      const object = await get(path);
      if (check(object as never)) return object;
      await advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    assert.fail(`${what}: ${JSON.stringify(await get(path))}`);
  };

  before(async () => {
    h = await startHarness({ workloads: 'simulate', podReadyDelayMs: 1000, jobDurationMs: 5000 });
    h.control.clock.freeze();
  });
  after(() => h.close());

  it('runs completions 3 with parallelism 2 to Complete after the job duration, as the 1.32 controller writes it', async () => {
    assert.equal((await h.call('POST', `${batch}/jobs`, job('three', { completions: 3, parallelism: 2 }))).status, 201);
    const started = await until(
      () => get(`${batch}/jobs/three`),
      (object) => object.status?.active === 2,
      'two active',
    );
    assert.ok(started.status.startTime);
    const pods = (await get('/api/v1/namespaces/default/pods?labelSelector=job-name=three')).items;
    assert.equal(pods.length, 2);
    assert.deepEqual(pods[0].metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.equal(pods[0].metadata.ownerReferences[0].kind, 'Job');
    await advance(1000);
    await until(
      () => get(`${batch}/jobs/three`),
      (object) => object.status?.ready === 2,
      'two ready',
    );
    const done = await stepUntil(
      `${batch}/jobs/three`,
      (object: { status?: { succeeded?: number; conditions?: unknown[] } }) => (object.status?.conditions ?? []).length >= 2,
      'complete',
    );
    assert.deepEqual(conditionsOf(done), [
      'SuccessCriteriaMet=True CompletionsReached: Reached expected number of succeeded pods',
      'Complete=True CompletionsReached: Reached expected number of succeeded pods',
    ]);
    // Zero counters are omitted, as Go's omitempty writes them.
    assert.deepEqual([done.status.succeeded, done.status.failed, done.status.active, typeof done.status.completionTime], [3, undefined, undefined, 'string']);
    const finished = (await get('/api/v1/namespaces/default/pods?labelSelector=job-name=three')).items;
    assert.equal(finished.length, 3);
    for (const pod of finished) {
      assert.equal(pod.status.phase, 'Succeeded');
      assert.equal(pod.metadata.finalizers, undefined, 'counted and released');
      assert.deepEqual([pod.status.containerStatuses[0].state.terminated.reason, pod.status.containerStatuses[0].state.terminated.exitCode], ['Completed', 0]);
    }
    const events = ((await get('/api/v1/namespaces/default/events')).items as { reason: string; involvedObject: { name: string } }[])
      .filter((event) => event.involvedObject.name === 'three')
      .map((event) => event.reason);
    assert.deepEqual(events, ['SuccessfulCreate', 'SuccessfulCreate', 'SuccessfulCreate', 'Completed']);
  });

  it('fails a Job whose Pods exit non-zero (the exit-code annotation) once backoffLimit is passed, retrying after the backoff', async () => {
    await h.call('POST', `${batch}/jobs`, job('broken', { backoffLimit: 1 }, { 'workloads.fogbank.dev/exit-code': '2' }));
    const failed = await stepUntil(
      `${batch}/jobs/broken`,
      (object: { status?: { conditions?: { type: string }[] } }) => (object.status?.conditions ?? []).some((condition) => condition.type === 'Failed'),
      'failed',
    );
    assert.deepEqual(conditionsOf(failed), [
      'FailureTarget=True BackoffLimitExceeded: Job has reached the specified backoff limit',
      'Failed=True BackoffLimitExceeded: Job has reached the specified backoff limit',
    ]);
    assert.equal(failed.status.failed, 2);
    const pods = (await get('/api/v1/namespaces/default/pods?labelSelector=job-name=broken')).items;
    assert.equal(pods.length, 2);
    const [first, second] = pods.sort((a: { metadata: { creationTimestamp: string } }, b: { metadata: { creationTimestamp: string } }) =>
      a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp),
    );
    assert.deepEqual(
      [first.status.phase, first.status.containerStatuses[0].state.terminated.exitCode, first.status.containerStatuses[0].state.terminated.reason],
      ['Failed', 2, 'Error'],
    );
    const gap = Date.parse(second.metadata.creationTimestamp) - Date.parse(first.status.containerStatuses[0].state.terminated.finishedAt);
    assert.ok(gap >= 10_000, `the retry waits the 10 s backoff (${gap} ms)`);
    const warning = (
      (await get('/api/v1/namespaces/default/events')).items as { type: string; reason: string; message: string; involvedObject: { name: string } }[]
    ).find((event) => event.involvedObject.name === 'broken' && event.type === 'Warning');
    assert.deepEqual([warning?.reason, warning?.message], ['BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
  });

  it('runs an Indexed Job one Pod per index and records completedIndexes', async () => {
    await h.call('POST', `${batch}/jobs`, job('indexed', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    const done = await stepUntil(
      `${batch}/jobs/indexed`,
      (object: { status?: { conditions?: { type: string }[] } }) => (object.status?.conditions ?? []).some((condition) => condition.type === 'Complete'),
      'complete',
    );
    assert.equal(done.status.completedIndexes, '0-2');
    const names = (
      (await get('/api/v1/namespaces/default/pods?labelSelector=job-name=indexed')).items as {
        metadata: { name: string; annotations: Record<string, string> };
      }[]
    )
      .map((pod) => `${pod.metadata.name.replace(/-[^-]+$/, '')} ${pod.metadata.annotations['batch.kubernetes.io/job-completion-index']}`)
      .sort();
    assert.deepEqual(names, ['indexed-0 0', 'indexed-1 1', 'indexed-2 2']);
  });

  it('creates a CronJob’s Jobs when the clock reaches the schedule, named by the scheduled minute, keeping the history limits', async () => {
    await h.call('POST', `${batch}/cronjobs`, {
      metadata: { name: 'tick' },
      spec: {
        schedule: '*/1 * * * *',
        successfulJobsHistoryLimit: 2,
        jobTemplate: {
          metadata: { labels: { app: 'tick' } },
          spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'work', image: 'busybox' }] } } },
        },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await get(`${batch}/jobs?labelSelector=app=tick`)).items.length, 0, 'nothing before the first minute');
    const minute = Math.floor(h.control.clock.now() / 60_000) + 1;
    await advance(minute * 60_000 - h.control.clock.now());
    const first = await until(
      () => get(`${batch}/jobs?labelSelector=app=tick`),
      (list) => list.items.length === 1,
      'one job',
    );
    const [made] = first.items;
    assert.equal(made.metadata.name, `tick-${minute}`);
    assert.equal(made.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(minute * 60_000).toISOString().replace('.000Z', 'Z'));
    assert.equal(made.metadata.ownerReferences[0].kind, 'CronJob');
    const cron = await until(
      () => get(`${batch}/cronjobs/tick`),
      (object) => object.status?.active?.length === 1,
      'active',
    );
    assert.equal(cron.status.lastScheduleTime, made.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']);
    // Three more minutes: each Job finishes within the minute; only the two newest successful ones stay.
    for (let step = 0; step < 3; step++) {
      for (let second = 0; second < 60; second += 10) {
        await advance(10_000);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    }
    const later = await until(
      () => get(`${batch}/cronjobs/tick`),
      (object) => object.status?.lastSuccessfulTime !== undefined,
      'a success',
    );
    assert.ok(later.status.lastSuccessfulTime);
    const names = ((await get(`${batch}/jobs?labelSelector=app=tick`)).items as { metadata: { name: string } }[]).map((item) => item.metadata.name).sort();
    assert.ok(names.length <= 3, names.join(','));
    assert.ok(names.includes(`tick-${minute + 3}`), names.join(','));
    assert.ok(!names.includes(`tick-${minute}`), 'the oldest went with the history limit');
  });
});
