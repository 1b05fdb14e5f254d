// @kubernetes/client-node against start({ workloads: 'simulate' }) (issue 38 Must show): a Job
// watched to completion, and a CronJob that fires when the test moves fogbank's clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { type Fogbank, start } from '../../src/fogbank.ts';

describe('client-node against --workloads simulate: Jobs run to completion, CronJobs follow the clock', () => {
  let fb: Fogbank;
  let kc: k8s.KubeConfig;
  let batch: k8s.BatchV1Api;
  before(async () => {
    fb = await start({ workloads: 'simulate', podReadyDelayMs: 100, jobDurationMs: 300 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(fb.kubeconfig);
    batch = kc.makeApiClient(k8s.BatchV1Api);
  });
  after(() => fb.stop());

  it('watches a Job with completions 2 until its Complete condition, as a test of a real controller would', async () => {
    const seen: string[] = [];
    const complete = new Promise<k8s.V1Job>((resolve, reject) => {
      void new k8s.Watch(kc)
        .watch(
          '/apis/batch/v1/namespaces/default/jobs',
          { fieldSelector: 'metadata.name=pi' },
          (phase: string, job: k8s.V1Job) => {
            seen.push(`${phase} active=${job.status?.active ?? 0} succeeded=${job.status?.succeeded ?? 0}`);
            if (job.status?.conditions?.some((condition) => condition.type === 'Complete' && condition.status === 'True')) resolve(job);
          },
          (error: unknown) => (error === null || error === undefined ? undefined : reject(error)),
        )
        .then((request) => complete.finally(() => request.abort()));
    });
    await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name: 'pi' },
        spec: {
          completions: 2,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-e', 'print 1'] }] } },
        },
      },
    });
    const job = await complete;
    assert.equal(job.status?.succeeded, 2);
    // A Watch hands over the objects as decoded JSON.
    assert.equal(typeof job.status?.completionTime, 'string');
    assert.deepEqual(
      job.status?.conditions?.map((condition) => [condition.type, condition.reason]),
      [
        ['SuccessCriteriaMet', 'CompletionsReached'],
        ['Complete', 'CompletionsReached'],
      ],
    );
    assert.ok(
      seen.some((line) => line.includes('active=1')),
      seen.join('\n'),
    );
    const pods = await kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'default', labelSelector: 'job-name=pi' });
    assert.deepEqual(
      pods.items.map((pod) => pod.status?.phase),
      ['Succeeded', 'Succeeded'],
    );
  });

  it('creates no Job while the clock stands still, and the scheduled one when clock.advance passes the schedule', async () => {
    fb.clock.freeze();
    fb.clock.set('2026-03-01T10:02:30Z');
    await batch.createNamespacedCronJob({
      namespace: 'default',
      body: {
        metadata: { name: 'report' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox' }] } } } },
        },
      },
    });
    const jobs = async () =>
      (await batch.listNamespacedJob({ namespace: 'default' })).items.filter((job) => job.metadata?.ownerReferences?.[0]?.name === 'report');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await jobs()).length, 0, 'not before 10:05');
    await fb.clock.advance('2m30s');
    let made: k8s.V1Job[] = [];
    for (let attempt = 0; attempt < 200 && made.length === 0; attempt++) {
      made = await jobs();
      if (made.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(made.length, 1);
    assert.equal(made[0]?.metadata?.name, `report-${Date.parse('2026-03-01T10:05:00Z') / 60_000}`);
    assert.equal(made[0]?.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2026-03-01T10:05:00Z');
    const cron = await batch.readNamespacedCronJob({ namespace: 'default', name: 'report' });
    assert.equal(cron.status?.lastScheduleTime?.toISOString(), '2026-03-01T10:05:00.000Z');
    assert.equal(cron.status?.active?.[0]?.name, made[0]?.metadata?.name, JSON.stringify(cron.status));
    // A second more: the Job's Pod has run its 300 ms, the Job is Complete and the CronJob saw it.
    await fb.clock.advance('1s');
    let finished: k8s.V1CronJob | undefined;
    for (let attempt = 0; attempt < 200 && finished?.status?.lastSuccessfulTime === undefined; attempt++) {
      finished = await batch.readNamespacedCronJob({ namespace: 'default', name: 'report' });
      if (finished.status?.lastSuccessfulTime === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(finished?.status?.active, undefined);
    assert.ok(finished?.status?.lastSuccessfulTime instanceof Date);
  });

  it('runs the whole chain within one clock.advance: the CronJob fires, its Job runs its Pods and is Complete when advance resolves', async () => {
    fb.clock.freeze();
    fb.clock.set('2026-03-01T10:58:00Z');
    await batch.createNamespacedCronJob({
      namespace: 'default',
      body: {
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 11 * * *',
          // Thirty Pods at once: more work per step than a few milliseconds of settling would cover.
          jobTemplate: {
            spec: { completions: 30, parallelism: 30, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'nightly', image: 'busybox' }] } } },
          },
        },
      },
    });
    // 11:00 the Job, 11:00:00.1 its Pods Running, 11:00:00.4 Succeeded: all before 11:01, and each step
    // waits for the controllers' work the one before started.
    await fb.clock.advance('3m');
    const name = `nightly-${Date.parse('2026-03-01T11:00:00Z') / 60_000}`;
    const job = await batch.readNamespacedJob({ namespace: 'default', name });
    assert.deepEqual(
      job.status?.conditions?.map((condition) => condition.type),
      ['SuccessCriteriaMet', 'Complete'],
    );
    assert.equal(job.status?.succeeded, 30);
    assert.equal(job.status?.startTime?.toISOString(), '2026-03-01T11:00:00.000Z');
    assert.equal(job.status?.completionTime?.toISOString(), '2026-03-01T11:00:00.000Z', 'status times are whole seconds');
    const cron = await batch.readNamespacedCronJob({ namespace: 'default', name: 'nightly' });
    assert.equal(cron.status?.lastSuccessfulTime?.toISOString(), '2026-03-01T11:00:00.000Z');
    assert.equal(cron.status?.active, undefined);
  });
});
