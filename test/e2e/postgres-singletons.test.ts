import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type PostgresServer } from '../../src/testing/postgres-server.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { OPERATIONS_KIND, operationKey, type StoredOperation } from '../../src/services/compute/operations/operation.ts';
import { GLOBAL } from '../../src/services/compute/shared/locations.ts';
import { Kubectl } from '../harness/kubectl.ts';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';
import { tempDir } from '../../src/testing/temp.ts';

// Run-once background work (Event TTL expiry, the ClusterRole aggregation controller, Operation
// retention, the ServiceAccount and APIService controllers) with two `fogbank start --store
// postgres://…` replicas on one database: each runs on exactly one replica, and a kill -9 of that
// replica hands it to the other. Each replica says in its log which of that work it runs. And the real kubectl watching through one replica prints
// what is written through the other.

const TOKEN = 'e2e-singletons';
const SINGLETONS = [
  'compute/operation-retention',
  'cluster/clusterrole-aggregation',
  'cluster/event-expiry',
  'cluster/serviceaccount-controller',
  'cluster/apiservice-controller',
  'cluster/garbage-collector',
  'cluster/endpoints-controller',
];
const DAY_MS = 24 * 60 * 60 * 1000;

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 45_000, seen: () => string = () => ''): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}${seen() === '' ? '' : `; seen:\n${seen()}`}`);
}

/** running is the singleton work a replica's log says it runs now. */
function running(proc: FogbankProcess): Set<string> {
  const now = new Set<string>();
  for (const line of proc.lines) {
    const match = /^info: this replica (now runs|no longer runs) (\S+)$/.exec(line);
    if (match === null) continue;
    if (match[1] === 'now runs') now.add(match[2]!);
    else now.delete(match[2]!);
  }
  return now;
}

async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const AGGREGATED = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'team-aggregate' },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-team': 'true' } }] },
};

function part(name: string, resource: string): unknown {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels: { 'example.com/aggregate-to-team': 'true' } },
    rules: [{ apiGroups: [''], resources: [resource], verbs: ['get'] }],
  };
}

function event(name: string): unknown {
  return {
    metadata: { name },
    involvedObject: { kind: 'Namespace', name: 'default', namespace: 'default' },
    reason: 'Expiring',
    message: `${name} lives two seconds`,
    type: 'Normal',
  };
}

describe('replicas on one PostgreSQL: singleton background work, and watches across replicas', () => {
  let server: PostgresServer;
  const processes: FogbankProcess[] = [];
  const kubectls: Kubectl[] = [];
  const stores: PostgresStore[] = [];

  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    for (const kubectl of kubectls) kubectl.cleanup();
    await Promise.all(stores.map((store) => store.close()));
    await server?.stop();
  });

  /** replica starts `fogbank start` on the database; the singleton tests expire events after 2 s and log what each replica runs. */
  const replica = async (url: string, options: { singletons: boolean } = { singletons: true }): Promise<FogbankProcess> => {
    const flags = options.singletons ? ['--event-ttl', '2s', '--log-level', 'info'] : ['--log-level', 'error'];
    const proc = await startFogbankProcess([
      '--port',
      '0',
      '--store',
      url,
      '--data-dir',
      tempDir('replica'),
      '--admin-token',
      TOKEN,
      '--operations',
      'instant',
      ...flags,
    ]);
    processes.push(proc);
    // A family is built, and its background work starts, with its first request.
    if (options.singletons) {
      assert.equal((await request(proc.url, 'GET', '/api/v1/namespaces/default')).status, 200);
      assert.equal((await request(proc.url, 'GET', '/compute/v1/projects/p/global/operations')).status, 200);
    }
    return proc;
  };
  const kubectl = (proc: FogbankProcess): Kubectl => {
    const client = new Kubectl(proc.url, TOKEN);
    kubectls.push(client);
    return client;
  };

  /** ageOperation moves a real Operation's times back a day and more, as if it had finished yesterday. */
  const ageOperation = async (store: PostgresStore, name: string): Promise<void> => {
    const key = operationKey('p', GLOBAL, name);
    await store.transact(async (tx) => {
      const record = await tx.get<StoredOperation>(OPERATIONS_KIND, key);
      assert.ok(record !== undefined && record.value.status === 'DONE');
      const op = record.value;
      await tx.put(
        OPERATIONS_KIND,
        key,
        {
          ...op,
          insertTime: op.insertTime - DAY_MS - 60_000,
          startTime: (op.startTime ?? op.insertTime) - DAY_MS - 60_000,
          endTime: (op.endTime ?? op.insertTime) - DAY_MS - 60_000,
        },
        { expectRevision: record.revision },
      );
    });
  };
  const insertTemplate = async (base: string, name: string): Promise<string> => {
    const op = await request(base, 'POST', '/compute/v1/projects/p/global/instanceTemplates', { name, properties: { machineType: 'e2-small' } });
    assert.equal(op.json['status'], 'DONE', JSON.stringify(op.json));
    return String(op.json['name']);
  };
  const aggregatedResources = async (base: string): Promise<string[]> => {
    const role = await request(base, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/team-aggregate');
    return ((role.json['rules'] ?? []) as { resources?: string[] }[]).flatMap((rule) => rule.resources ?? []).sort();
  };

  it('each runs on exactly one replica, and kill -9 of that replica hands all of it to the other', { timeout: 240_000 }, async (t) => {
    const url = await server.createDatabase('singletons');
    const a = await replica(url);
    await waitFor('A to run every singleton', () => running(a).size === SINGLETONS.length);
    const b = await replica(url);
    // B is up, its cluster parts loaded, while A lives: it runs none of them.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.deepEqual([...running(b)], []);
    assert.deepEqual([...running(a)].sort(), [...SINGLETONS].sort());
    const store = await PostgresStore.open(url);
    stores.push(store);

    // Watchers on both replicas see the expiry of one event, once.
    const watchA = kubectl(a).start(['get', 'events', '-n', 'default', '-w', '--output-watch-events']);
    const watchB = kubectl(b).start(['get', 'events', '-n', 'default', '-w', '--output-watch-events']);
    try {
      // kubectl prints the list before the watch: wait for it so the create is a watch event.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal((await request(b.url, 'POST', '/api/v1/namespaces/default/events', event('first'))).status, 201);
      // A (the expiry leader) deletes it about two seconds later.
      for (const watch of [watchA, watchB])
        await waitFor(
          'the DELETED line',
          () => /^DELETED\s.*\sfirst lives two seconds$/m.test(watch.output()),
          45_000,
          () => `${watch.output()}\n${a.lines.join('\n')}`,
        );

      // The aggregated role converges, whichever replica the parts are written through.
      assert.equal((await request(a.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', AGGREGATED)).status, 201);
      assert.equal((await request(b.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', part('team-pods', 'pods'))).status, 201);
      await waitFor('team-aggregate to gather pods', async () => (await aggregatedResources(b.url)).join() === 'pods');

      // A yesterday's Operation is swept by whoever runs retention as it takes over.
      const old = await insertTemplate(b.url, 'made-yesterday');
      await ageOperation(store, old);

      // An owner and its dependent, written through A while it collects garbage.
      const owner = await request(a.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'gc-owner' } });
      assert.equal(owner.status, 201);
      const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-owner', uid: (owner.json['metadata'] as { uid: string }).uid };
      const dependent = { metadata: { name: 'gc-dependent', ownerReferences: [ownerRef] } };
      assert.equal((await request(a.url, 'POST', '/api/v1/namespaces/default/configmaps', dependent)).status, 201);

      await a.stop('SIGKILL');
      const killedAt = performance.now();
      // The owner goes while no collector runs: the next one finds its dependent on its start.
      assert.equal((await request(b.url, 'DELETE', '/api/v1/namespaces/default/configmaps/gc-owner')).status, 200);
      // With no controller running anywhere, a new part arrives, and a new event.
      assert.equal((await request(b.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', part('team-secrets', 'secrets'))).status, 201);
      assert.equal((await request(b.url, 'POST', '/api/v1/namespaces/default/events', event('second'))).status, 201);
      await waitFor('B to run every singleton', () => running(b).size === SINGLETONS.length);
      t.diagnostic(`B took over ${Math.round(performance.now() - killedAt)} ms after the kill (leases last 10 s)`);
      // The new leader re-listed the roles and reconciled; it swept the old Operation; it expires events.
      await waitFor('team-aggregate to gather secrets', async () => (await aggregatedResources(b.url)).join() === 'pods,secrets');
      assert.equal((await request(b.url, 'GET', `/compute/v1/projects/p/global/operations/${old}`)).status, 404);
      await waitFor(
        'the new collector to delete the dependent',
        async () => (await request(b.url, 'GET', '/api/v1/namespaces/default/configmaps/gc-dependent')).status === 404,
      );
      await waitFor('the second DELETED line', () => /^DELETED\s.*\ssecond lives two seconds$/m.test(watchB.output()));
      // Every deletion was seen once, and no replica logged a failure.
      assert.equal(watchB.output().match(/^DELETED\s/gm)?.length, 2, watchB.output());
      assert.equal(watchA.output().match(/^DELETED\s/gm)?.length, 1, watchA.output());
      for (const proc of [a, b])
        assert.deepEqual(
          proc.lines.filter((line) => /^(error|warn):/.test(line)),
          [],
        );
    } finally {
      watchA.child.kill();
      watchB.child.kill();
    }
    await b.stop('SIGKILL');
  });

  it('a replica shutting down cleanly releases its singletons at once, and the next replica takes them', { timeout: 120_000 }, async () => {
    const url = await server.createDatabase('singletons_clean');
    const a = await replica(url);
    await waitFor('A to run every singleton', () => running(a).size === SINGLETONS.length);
    assert.equal(await a.stop('SIGTERM'), 0);
    assert.deepEqual([...running(a)], []);
    // Released, not left to expire: anyone may take each lease now (a killed replica's would be refused for 10 s).
    const store = await PostgresStore.open(url);
    stores.push(store);
    for (const name of SINGLETONS) {
      assert.equal(await store.leases.acquire(name, 'probe', 1), true, name);
      await store.leases.release(name, 'probe');
    }
    const b = await replica(url);
    await waitFor('B to run every singleton', () => running(b).size === SINGLETONS.length);
    await b.stop('SIGKILL');
  });

  it('a watch through B prints the ADDED, MODIFIED and DELETED of ClusterRoles and Events written through A', { timeout: 120_000 }, async () => {
    const url = await server.createDatabase('watch');
    const a = await replica(url, { singletons: false });
    const b = await replica(url, { singletons: false });
    const throughA = kubectl(a);
    const throughB = kubectl(b);
    const roles = throughB.start(['get', 'clusterroles', '-w', '--output-watch-events']);
    const events = throughB.start(['get', 'events', '-n', 'default', '-w', '--output-watch-events']);
    try {
      // kubectl lists, prints the list as ADDED lines, then watches from the list's resourceVersion:
      // whatever is written after the list arrives as a watch event, so nothing is missed.
      await waitFor('the initial ClusterRole list', () => /^ADDED\s+cluster-admin\s+\d{4}-/m.test(roles.output()));

      const kubectlOk = async (args: string[]): Promise<void> => {
        const result = await throughA.run(args);
        assert.equal(result.code, 0, result.stderr);
      };
      await kubectlOk(['create', 'clusterrole', 'watched', '--verb=get', '--resource=clusterroles']);
      await waitFor('ADDED watched', () => /^ADDED\s+watched\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m.test(roles.output()));
      await kubectlOk(['label', 'clusterroles', 'watched', 'team=blue']);
      await waitFor('MODIFIED watched', () => /^MODIFIED\s+watched\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m.test(roles.output()));
      await kubectlOk(['delete', 'clusterrole', 'watched']);
      await waitFor('DELETED watched', () => /^DELETED\s+watched\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m.test(roles.output()));
      const lines = roles
        .output()
        .split('\n')
        .filter((line) => /\swatched\s/.test(line))
        .map((line) => line.split(/\s+/)[0]);
      assert.deepEqual(lines, ['ADDED', 'MODIFIED', 'DELETED']);

      const created = await request(a.url, 'POST', '/api/v1/namespaces/default/events', {
        ...(event('deploy') as object),
        reason: 'Deployed',
        message: 'rolled out',
        count: 1,
      });
      assert.equal(created.status, 201);
      await waitFor('ADDED deploy', () => /^ADDED\s+\S+\s+Normal\s+Deployed\s+namespace\/default\s+rolled out$/m.test(events.output()));
      const patched = await request(
        a.url,
        'PATCH',
        '/api/v1/namespaces/default/events/deploy',
        { message: 'rolled out again', count: 2 },
        'application/merge-patch+json',
      );
      assert.equal(patched.status, 200);
      await waitFor('MODIFIED deploy', () => /^MODIFIED\s+\S+\s+Normal\s+Deployed\s+namespace\/default\s+rolled out again$/m.test(events.output()));
      await kubectlOk(['delete', 'event', 'deploy', '-n', 'default']);
      await waitFor('DELETED deploy', () => /^DELETED\s+\S+\s+Normal\s+Deployed\s+namespace\/default\s+rolled out again$/m.test(events.output()));
    } finally {
      roles.child.kill();
      events.child.kill();
    }
  });
});
