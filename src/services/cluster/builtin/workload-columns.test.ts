import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

describe('the kubectl get columns of StatefulSets, DaemonSets, ReplicationControllers and CronJobs', () => {
  let h: ClusterHarness;
  const table = async (path: string) => {
    const answer = await h.call('GET', path, undefined, TABLE);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const columns = (answer.body.columnDefinitions as { name: string; type: string; priority: number }[]).map(
      (column) => `${column.name}:${column.type}${column.priority === 0 ? '' : ' wide'}`,
    );
    const [row] = answer.body.rows as { cells: unknown[] }[];
    // The Age cell is the last of the priority-0 columns: it depends on the clock, not checked here.
    return { columns, cells: row?.cells ?? [] };
  };
  const template = (app: string, spec: Record<string, unknown> = {}) => ({
    metadata: { labels: { app } },
    spec: { containers: [{ name: app, image: `${app}:1` }], ...spec },
  });

  before(async () => {
    h = await startHarness();
    // Still, so the last schedule's age reads the same however slowly the test runs.
    h.control.clock.freeze();
    const created = [
      await h.call('POST', '/apis/apps/v1/namespaces/default/statefulsets', {
        metadata: { name: 'db' },
        spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') },
      }),
      await h.call('POST', '/apis/apps/v1/namespaces/default/daemonsets', {
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: template('agent', { nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } }),
        },
      }),
      await h.call('POST', '/api/v1/namespaces/default/replicationcontrollers', {
        metadata: { name: 'rc' },
        spec: { replicas: 3, selector: { app: 'rc', tier: 'web' }, template: { ...template('rc'), metadata: { labels: { app: 'rc', tier: 'web' } } } },
      }),
      await h.call('POST', '/apis/batch/v1/namespaces/default/cronjobs', {
        metadata: { name: 'report' },
        spec: {
          schedule: '*/5 * * * *',
          timeZone: 'Etc/UTC',
          jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox' }] } } } },
        },
      }),
    ];
    for (const answer of created) assert.equal(answer.status, 201, JSON.stringify(answer.body));
    // Status as the controllers would write it (no simulation runs here).
    const status = async (path: string, body: Record<string, unknown>) =>
      assert.equal((await h.call('PATCH', `${path}/status`, { status: body }, { 'content-type': 'application/merge-patch+json' })).status, 200);
    await status('/apis/apps/v1/namespaces/default/statefulsets/db', { replicas: 2, readyReplicas: 1 });
    await status('/apis/apps/v1/namespaces/default/daemonsets/agent', {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 3,
      numberAvailable: 2,
      numberMisscheduled: 0,
    });
    await status('/api/v1/namespaces/default/replicationcontrollers/rc', { replicas: 3, readyReplicas: 3 });
    await status('/apis/batch/v1/namespaces/default/cronjobs/report', {
      active: [{ kind: 'Job', namespace: 'default', name: 'report-1', apiVersion: 'batch/v1' }],
      lastScheduleTime: new Date(h.control.clock.now() - 125_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
  });
  after(() => h.close());

  it('StatefulSet: READY is ready/desired', async () => {
    const { columns, cells } = await table('/apis/apps/v1/namespaces/default/statefulsets/db');
    assert.deepEqual(columns, ['Name:string', 'Ready:string', 'Age:string', 'Containers:string wide', 'Images:string wide']);
    assert.deepEqual([cells[0], cells[1], ...cells.slice(3)], ['db', '1/2', 'db', 'db:1']);
  });

  it('DaemonSet: the node counts and the template node selector', async () => {
    const { columns, cells } = await table('/apis/apps/v1/namespaces/default/daemonsets/agent');
    assert.deepEqual(columns, [
      'Name:string',
      'Desired:integer',
      'Current:integer',
      'Ready:integer',
      'Up-to-date:integer',
      'Available:integer',
      'Node Selector:string',
      'Age:string',
      'Containers:string wide',
      'Images:string wide',
      'Selector:string wide',
    ]);
    assert.deepEqual([...cells.slice(0, 7), ...cells.slice(8)], ['agent', 3, 3, 2, 3, 2, 'disk=ssd,kubernetes.io/os=linux', 'agent', 'agent:1', 'app=agent']);
  });

  it('ReplicationController: desired, current and ready, and its map selector', async () => {
    const { columns, cells } = await table('/api/v1/namespaces/default/replicationcontrollers/rc');
    assert.deepEqual(columns, [
      'Name:string',
      'Desired:integer',
      'Current:integer',
      'Ready:integer',
      'Age:string',
      'Containers:string wide',
      'Images:string wide',
      'Selector:string wide',
    ]);
    assert.deepEqual([...cells.slice(0, 4), ...cells.slice(5)], ['rc', 3, 3, 3, 'rc', 'rc:1', 'app=rc,tier=web']);
  });

  it('CronJob: schedule, time zone, suspend as text, active Jobs, and the last schedule as an age', async () => {
    const { columns, cells } = await table('/apis/batch/v1/namespaces/default/cronjobs/report');
    assert.deepEqual(columns, [
      'Name:string',
      'Schedule:string',
      'Timezone:string',
      'Suspend:boolean',
      'Active:integer',
      'Last Schedule:string',
      'Age:string',
      'Containers:string wide',
      'Images:string wide',
      'Selector:string wide',
    ]);
    assert.deepEqual([...cells.slice(0, 6), ...cells.slice(7)], ['report', '*/5 * * * *', 'Etc/UTC', 'False', 1, '2m5s', 'report', 'busybox', '<none>']);
  });
});
