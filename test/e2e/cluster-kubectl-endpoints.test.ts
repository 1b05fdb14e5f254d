import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-endpoints-admin';

describe('Endpoints and EndpointSlices follow a Service with the real kubectl', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const ok = async (args: string[], input?: string) => {
    const result = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  /** untilOutput reruns a kubectl command until it prints `expected` (the controllers run on the change feed). */
  const untilOutput = async (args: string[], expected: string) => {
    let last = '';
    for (let attempt = 0; attempt < 100; attempt++) {
      last = await ok(args);
      if (last === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(last, expected);
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('a Pod whose status a test writes (ready, with an IP) appears in the Service endpoints and its slice; unready, it leaves the ready set', async () => {
    await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n');
    await ok(
      ['apply', '-f', '-'],
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: web-1, labels: {app: web}}',
        'spec:',
        '  nodeName: node-1',
        '  containers: [{name: web, image: nginx, ports: [{name: http, containerPort: 8080}]}]',
        '---',
        'apiVersion: v1',
        'kind: Service',
        'metadata: {name: web}',
        'spec: {selector: {app: web}, ports: [{name: http, port: 80, targetPort: http}]}',
        '',
      ].join('\n'),
    );
    const status = { status: { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], conditions: [{ type: 'Ready', status: 'True' }] } };
    await ok(['patch', 'pod', 'web-1', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    await untilOutput(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}'], '10.0.0.5:8080');
    const table = await ok(['get', 'endpoints', 'web']);
    assert.match(table, /^NAME\s+ENDPOINTS\s+AGE\nweb\s+10\.0\.0\.5:8080\s+\S+\n$/);
    assert.match(
      await ok(['get', 'endpointslices']),
      /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n(kubernetes\s+IPv4\s+\d+\s+\S+\s+\S+\n)?web-[a-z0-9]{5}\s+IPv4\s+8080\s+10\.0\.0\.5\s+\S+\n/,
    );
    const slices = JSON.parse(await ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json']));
    assert.equal(slices.items.length, 1);
    const [slice] = slices.items;
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.deepEqual(slice.endpoints[0].addresses, ['10.0.0.5']);
    assert.deepEqual(slice.endpoints[0].conditions, { ready: true, serving: true, terminating: false });

    const unready = { status: { conditions: [{ type: 'Ready', status: 'False' }] } };
    await ok(['patch', 'pod', 'web-1', '--subresource=status', '--type=merge', '-p', JSON.stringify(unready)]);
    await untilOutput(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].notReadyAddresses[0].ip}'], '10.0.0.5');
    await untilOutput(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[0].endpoints[0].conditions.ready}'], 'false');

    // The Service goes: its Endpoints with it, its slices by the garbage collector.
    await ok(['delete', 'service', 'web']);
    await untilOutput(['get', 'endpoints,endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'name'], '');
    await untilOutput(['get', 'endpoints', '--ignore-not-found', '-o', 'name'], 'endpoints/kubernetes\n');
  });
});
