import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, type HarnessResponse, startHarness } from '../../../testing/cluster-harness.ts';

const BASE = '/apis/apiregistration.k8s.io/v1/apiservices';

const backed = (name: string, service: Record<string, unknown>) => {
  const [version = '', ...group] = name.split('.');
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: { group: group.join('.'), version, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service },
  };
};

describe('apiregistration.k8s.io/v1 APIService', () => {
  let cluster: ClusterHarness;
  /** availableOf reads the Available condition once the availability controller has written the one wanted (it runs on the change feed). */
  const availableOf = async (name: string, reason: string): Promise<Record<string, unknown>> => {
    let last: HarnessResponse | undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      last = await cluster.call('GET', `${BASE}/${name}`);
      const condition = (last.body.status?.conditions ?? []).find((entry: { type: string }) => entry.type === 'Available');
      if (condition?.reason === reason) return condition;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.fail(`no ${reason} condition on ${name}: ${JSON.stringify(last?.body.status)}`);
  };
  before(async () => {
    cluster = await startHarness();
  });
  after(async () => cluster.close());

  it('lists a local APIService for every group-version served, each Available (Local), as upstream registers them', async () => {
    const list = await cluster.call('GET', BASE);
    assert.equal(list.status, 200);
    assert.equal(list.body.kind, 'APIServiceList');
    const names = list.body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    for (const name of [
      'v1.',
      'v1.apps',
      'v2.autoscaling',
      'v1.authentication.k8s.io',
      'v1.authorization.k8s.io',
      'v1.apiextensions.k8s.io',
      'v1.events.k8s.io',
    ]) {
      assert.ok(names.includes(name), `${name} listed`);
    }
    assert.ok(!names.some((name: string) => name.endsWith('resource.k8s.io')), 'no beta group');
    const core = list.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'v1.');
    assert.deepEqual(core.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    assert.deepEqual(core.status.conditions, [
      { type: 'Available', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'Local', message: 'Local APIServices are always available' },
    ]);
    const apps = list.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'v1.apps');
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  });

  it('a created local APIService is Available at once; a duplicate is the 409 naming the group and kind', async () => {
    const body = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1alpha1.local.example.com' },
      spec: { group: 'local.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15 },
    };
    const created = await cluster.call('POST', BASE, body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status.conditions[0].reason, 'Local');
    const again = await cluster.call('POST', BASE, body);
    assert.equal(again.status, 409);
    assert.equal(again.body.message, 'apiservices.apiregistration.k8s.io "v1alpha1.local.example.com" already exists');
    assert.equal(again.body.details.group, 'apiregistration.k8s.io');
    assert.equal(again.body.details.kind, 'apiservices');
    assert.equal(again.body.details.name, 'v1alpha1.local.example.com');
  });

  it('a Service-backed APIService walks the availability checks: ServiceNotFound, ServicePortError, EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck', async () => {
    const name = 'v1beta1.metrics.example.com';
    const created = await cluster.call('POST', BASE, backed(name, { namespace: 'default', name: 'metrics' }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.service.port, 443, 'SetDefaults_ServiceReference');
    assert.equal(created.body.status?.conditions, undefined, "a new APIService's status is the server's");
    const notFound = await availableOf(name, 'ServiceNotFound');
    assert.equal(notFound['status'], 'False');
    assert.equal(notFound['message'], 'service/metrics in "default" is not present');

    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics' }, spec: { ports: [{ name: 'web', port: 8443 }] } };
    assert.equal((await cluster.call('POST', '/api/v1/namespaces/default/services', service)).status, 201);
    assert.equal((await availableOf(name, 'ServicePortError'))['message'], 'service/metrics in "default" is not listening on port 443');

    const patched = await cluster.call(
      'PATCH',
      `/api/v1/namespaces/default/services/metrics`,
      { spec: { ports: [{ name: 'https', port: 443 }] } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await availableOf(name, 'EndpointsNotFound'))['message'], 'cannot find endpoints for service/metrics in "default"');

    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'metrics' },
      subsets: [{ addresses: [{ ip: '10.244.0.5' }], ports: [{ name: 'other', port: 443 }] }],
    };
    assert.equal((await cluster.call('POST', '/api/v1/namespaces/default/endpoints', endpoints)).status, 201);
    assert.equal(
      (await availableOf(name, 'MissingEndpoints'))['message'],
      'endpoints for service/metrics in "default" have no addresses with port name "https"',
    );

    const fixed = await cluster.call('PUT', '/api/v1/namespaces/default/endpoints/metrics', {
      ...endpoints,
      subsets: [{ addresses: [{ ip: '10.244.0.5' }], ports: [{ name: 'https', port: 443 }] }],
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    const clusterIp = (await cluster.call('GET', '/api/v1/namespaces/default/services/metrics')).body.spec.clusterIP;
    const url = `https://${clusterIp}:443/apis/metrics.example.com/v1beta1`;
    const failed = await availableOf(name, 'FailedDiscoveryCheck');
    assert.equal(
      failed['message'],
      `failing or missing response from ${url}: Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );

    // The table kubectl prints.
    const table = await cluster.call('GET', `${BASE}/${name}`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.body.columnDefinitions.map((column: { name: string }) => column.name),
      ['Name', 'Service', 'Available', 'Age'],
    );
    assert.deepEqual(table.body.rows[0].cells.slice(0, 3), [name, 'default/metrics', 'False (FailedDiscoveryCheck)']);
  });

  it('validates as kube-aggregator does', async () => {
    const refused = await cluster.call('POST', BASE, {
      ...backed('v1.wrong.example.com', { namespace: '', name: 'x', port: 0 }),
      spec: { group: 'other.example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 2000, service: { name: 'x', namespace: '', port: 70000 } },
    });
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      'APIService.apiregistration.k8s.io "v1.wrong.example.com" is invalid: [metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.other.example.com", spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000, spec.versionPriority: Invalid value: 2000: must be positive and less than 1000, spec.service.namespace: Required value, spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive]',
    );
    const local = await cluster.call('POST', BASE, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v2' },
      spec: { version: 'v2', groupPriorityMinimum: 1, versionPriority: 1, insecureSkipTLSVerify: true },
    });
    assert.equal(local.status, 422);
    assert.match(local.body.message, /spec\.group: Required value: only v1 may have an empty group and it better be legacy kube/);
    assert.match(local.body.message, /spec\.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify/);
  });

  it('update keeps the status, /status writes it alone (and only True, False or Unknown), delete removes it', async () => {
    const name = 'v1alpha1.local.example.com';
    const read = await cluster.call('GET', `${BASE}/${name}`);
    const updated = await cluster.call('PUT', `${BASE}/${name}`, {
      ...read.body,
      spec: { ...read.body.spec, versionPriority: 20 },
      status: { conditions: [] },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.spec.versionPriority, 20);
    assert.equal(updated.body.status.conditions[0].reason, 'Local');
    const { resourceVersion: _rv, ...unversioned } = updated.body.metadata;
    const unconditional = await cluster.call('PUT', `${BASE}/${name}`, { ...updated.body, metadata: unversioned });
    assert.equal(unconditional.status, 422);
    assert.match(unconditional.body.message, /metadata\.resourceVersion: Invalid value: .*must be specified for an update/);
    const badStatus = await cluster.call('PUT', `${BASE}/${name}/status`, {
      ...updated.body,
      status: { conditions: [{ type: 'Available', status: 'Maybe' }] },
    });
    assert.equal(badStatus.status, 422);
    assert.match(badStatus.body.message, /status\.conditions\[0\]\.status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"/);
    const deleted = await cluster.call('DELETE', `${BASE}/${name}`);
    assert.equal(deleted.status, 200);
    assert.equal((await cluster.call('GET', `${BASE}/${name}`)).status, 404);
  });

  it('discovery lists the apiregistration.k8s.io group and no beta group-version', async () => {
    const groups = await cluster.call('GET', '/apis', undefined, { accept: 'application/json' });
    const names = groups.body.groups.map((group: { name: string }) => group.name);
    assert.ok(names.includes('apiregistration.k8s.io'));
    assert.ok(!names.includes('resource.k8s.io'));
    const resources = await cluster.call('GET', '/apis/apiregistration.k8s.io/v1');
    assert.deepEqual(
      resources.body.resources.map((resource: { name: string }) => resource.name),
      ['apiservices', 'apiservices/status'],
    );
    assert.deepEqual(resources.body.resources[0].categories, ['api-extensions']);
    assert.equal((await cluster.call('GET', '/apis/resource.k8s.io/v1beta1/resourceclaims')).status, 404);
  });

  it('a CustomResourceDefinition version gets its automanaged APIService', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.shop.example.com' },
      spec: {
        group: 'shop.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await cluster.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const condition = await availableOf('v1.shop.example.com', 'Local');
    assert.equal(condition['status'], 'True');
    const apiService = await cluster.call('GET', `${BASE}/v1.shop.example.com`);
    assert.deepEqual(apiService.body.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    assert.deepEqual(apiService.body.spec, { group: 'shop.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
  });
});
