import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const NS = '/api/v1/namespaces/default';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const MERGE = { 'content-type': 'application/merge-patch+json' };

interface PodOptions {
  readonly labels?: Record<string, string>;
  readonly ip?: string;
  readonly ready?: boolean;
  readonly node?: string;
  readonly phase?: string;
  readonly ports?: { name: string; containerPort: number; protocol?: string }[];
  readonly hostname?: string;
  readonly subdomain?: string;
}

describe('the endpoints and endpointslice controllers', () => {
  let h: ClusterHarness;
  const settle = () => h.app.warmUp();

  /** pod writes a Pod, then its status as a kubelet would (the status subresource). */
  const pod = async (name: string, options: PodOptions = {}) => {
    const created = await h.call('POST', `${NS}/pods`, {
      metadata: { name, labels: options.labels ?? { app: 'web' } },
      spec: {
        nodeName: options.node ?? 'node-1',
        containers: [{ name: 'c', image: 'nginx', ports: options.ports ?? [{ name: 'http', containerPort: 8080 }] }],
        ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
        ...(options.subdomain === undefined ? {} : { subdomain: options.subdomain }),
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    if (options.ip === undefined) return created.body;
    const status = await h.call(
      'PATCH',
      `${NS}/pods/${name}/status`,
      {
        status: {
          phase: options.phase ?? 'Running',
          podIP: options.ip,
          podIPs: [{ ip: options.ip }],
          conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
        },
      },
      MERGE,
    );
    assert.equal(status.status, 200, JSON.stringify(status.body));
    return status.body;
  };
  const endpoints = async (name: string) => (await h.call('GET', `${NS}/endpoints/${name}`)).body;
  const slicesOf = async (name: string) => (await h.call('GET', `${SLICES}?labelSelector=kubernetes.io%2Fservice-name%3D${name}`)).body.items;

  before(async () => {
    h = await startHarness();
    for (const [name, zone] of [
      ['node-1', 'zone-a'],
      ['node-2', undefined],
    ] as const) {
      const node = await h.call('POST', '/api/v1/nodes', {
        metadata: { name, ...(zone === undefined ? {} : { labels: { 'topology.kubernetes.io/zone': zone } }) },
      });
      assert.equal(node.status, 201, JSON.stringify(node.body));
    }
  });
  after(async () => h.close());

  it('follow a Service selector: ready and not-ready Pods, named targetPorts, terminal and IP-less Pods left out', async () => {
    const service = await h.call('POST', `${NS}/services`, {
      metadata: { name: 'web', labels: { tier: 'front' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    assert.equal(service.status, 201);
    const ready = await pod('web-1', { ip: '10.0.0.2' });
    const unready = await pod('web-2', { ip: '10.0.0.1', ready: false, node: 'node-2' });
    await pod('web-3');
    await pod('web-4', { ip: '10.0.0.9', phase: 'Succeeded' });
    await pod('other', { labels: { app: 'other' }, ip: '10.0.0.7' });
    await settle();

    const ep = await endpoints('web');
    assert.deepEqual(ep.metadata.labels, { tier: 'front' });
    assert.ok(ep.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']);
    assert.deepEqual(ep.subsets, [
      {
        addresses: [{ ip: '10.0.0.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: ready.metadata.uid } }],
        notReadyAddresses: [{ ip: '10.0.0.1', nodeName: 'node-2', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-2', uid: unready.metadata.uid } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);

    const [slice, ...more] = await slicesOf('web');
    assert.equal(more.length, 0);
    assert.equal(slice.addressType, 'IPv4');
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.deepEqual(slice.metadata.labels, {
      tier: 'front',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    assert.deepEqual(slice.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Service', name: 'web', uid: service.body.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const byName = Object.fromEntries(slice.endpoints.map((endpoint: { targetRef: { name: string } }) => [endpoint.targetRef.name, endpoint]));
    assert.deepEqual(Object.keys(byName).sort(), ['web-1', 'web-2']);
    assert.deepEqual(byName['web-1'], {
      addresses: ['10.0.0.2'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: ready.metadata.uid },
      nodeName: 'node-1',
      zone: 'zone-a',
    });
    assert.deepEqual(byName['web-2'].conditions, { ready: false, serving: false, terminating: false });
  });

  it('move with readiness, and a terminating Pod leaves Endpoints but stays in its slice, not ready', async () => {
    await h.call('PATCH', `${NS}/pods/web-2/status`, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
    await settle();
    assert.deepEqual(
      (await endpoints('web')).subsets[0].addresses.map((address: { ip: string }) => address.ip),
      ['10.0.0.1', '10.0.0.2'],
    );
    // A finalizer holds the Pod while it terminates (no kubelet here to finish it).
    await h.call('PATCH', `${NS}/pods/web-1`, { metadata: { finalizers: ['example.com/hold'] } }, MERGE);
    await h.call('DELETE', `${NS}/pods/web-1`);
    await settle();
    const ep = await endpoints('web');
    assert.deepEqual(
      ep.subsets[0].addresses.map((address: { ip: string }) => address.ip),
      ['10.0.0.1'],
    );
    const [slice] = await slicesOf('web');
    const terminating = slice.endpoints.find((endpoint: { targetRef: { name: string } }) => endpoint.targetRef.name === 'web-1');
    assert.deepEqual(terminating.conditions, { ready: false, serving: true, terminating: true });
    await h.call('PATCH', `${NS}/pods/web-1`, { metadata: { finalizers: null } }, MERGE);
    await settle();
    assert.equal(
      (await slicesOf('web'))[0].endpoints.find((endpoint: { targetRef: { name: string } }) => endpoint.targetRef.name === 'web-1'),
      undefined,
    );
  });

  it('an unresolvable named port skips the Pod; a numeric targetPort is used as is; a headless Service is labelled and sets hostnames', async () => {
    const service = await h.call('POST', `${NS}/services`, {
      metadata: { name: 'db' },
      spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'sql', port: 5432, targetPort: 'sql' }] },
    });
    assert.equal(service.status, 201, JSON.stringify(service.body));
    await pod('db-0', { labels: { app: 'db' }, ip: '10.0.1.1', ports: [{ name: 'sql', containerPort: 5433 }], hostname: 'db-0', subdomain: 'db' });
    await pod('db-1', { labels: { app: 'db' }, ip: '10.0.1.2', ports: [{ name: 'other', containerPort: 1 }] });
    await settle();
    const ep = await endpoints('db');
    assert.equal(ep.metadata.labels['service.kubernetes.io/headless'], '');
    assert.deepEqual(ep.subsets.length, 1);
    assert.equal(ep.subsets[0].addresses[0].hostname, 'db-0');
    assert.deepEqual(ep.subsets[0].ports, [{ name: 'sql', port: 5433, protocol: 'TCP' }]);
    const slices = await slicesOf('db');
    // Two port sets: db-0's resolved port, and db-1 with none.
    assert.equal(slices.length, 2);
    assert.equal(slices[0].metadata.labels['service.kubernetes.io/headless'], '');
  });

  it('a Service without a selector keeps the Endpoints its user writes; a Service without Pods gets a placeholder slice', async () => {
    assert.equal((await h.call('POST', `${NS}/services`, { metadata: { name: 'external' }, spec: { ports: [{ port: 443 }] } })).status, 201);
    const written = await h.call('POST', `${NS}/endpoints`, {
      metadata: { name: 'external' },
      subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443 }] }],
    });
    assert.equal(written.status, 201);
    await h.call('POST', `${NS}/services`, { metadata: { name: 'empty' }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
    await settle();
    assert.deepEqual((await endpoints('external')).subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 443, protocol: 'TCP' }] }]);
    assert.deepEqual(await slicesOf('external'), []);
    const [placeholder] = await slicesOf('empty');
    assert.deepEqual(placeholder.endpoints, []);
    // `ports` has no omitempty: Go writes the nil list as null (kubectl prints <unset>).
    assert.equal(placeholder.ports, null);
    assert.equal((await endpoints('empty')).subsets, undefined);
  });

  it("a managed object written by someone else is put right at the Service's next sync; a deleted Service's Endpoints and slices go", async () => {
    await h.call('PUT', `${NS}/endpoints/web`, { metadata: { name: 'web', resourceVersion: (await endpoints('web')).metadata.resourceVersion }, subsets: [] });
    await settle();
    // Upstream's controller does not watch Endpoints updates (only deletions): the edit stands until the Service is synced again.
    assert.deepEqual((await endpoints('web')).subsets ?? [], []);
    await h.call('PATCH', `${NS}/services/web`, { metadata: { annotations: { touched: 'yes' } } }, { 'content-type': 'application/merge-patch+json' });
    await settle();
    assert.deepEqual(
      (await endpoints('web')).subsets[0].addresses.map((address: { ip: string }) => address.ip),
      ['10.0.0.1'],
    );
    assert.equal((await h.call('DELETE', `${NS}/services/web`)).status, 200);
    await settle();
    assert.equal((await h.call('GET', `${NS}/endpoints/web`)).status, 404);
    assert.deepEqual(await slicesOf('web'), []);
  });
});
