import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { endpointsSubsets, MAX_ENDPOINT_ADDRESSES } from './endpoints-subsets.ts';

const pod = (name: string, ip: string, ready = true, ports = [{ name: 'http', containerPort: 8080 }]): BuiltinObject => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', ports }] },
  status: { phase: 'Running', podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('Endpoints subsets', () => {
  it('repack: Pods offering the same ports share a subset, addresses in IP order; Pods offering other ports get their own', () => {
    const service = {
      name: 'web',
      ipFamily: 'IPv4' as const,
      publishNotReadyAddresses: false,
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' },
        { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
      ],
    };
    const { subsets, truncated } = endpointsSubsets(service, [
      pod('b', '10.0.0.10'),
      pod('a', '10.0.0.9'),
      pod('c', '10.0.0.2', true, [{ name: 'other', containerPort: 1 }]),
    ]);
    assert.equal(truncated, false);
    assert.deepEqual(
      subsets.map((subset) => ({ ips: subset.addresses?.map((address) => address.ip), ports: subset.ports?.map((port) => `${port.name}:${port.port}`) })),
      [
        { ips: ['10.0.0.2'], ports: ['metrics:9090'] },
        { ips: ['10.0.0.9', '10.0.0.10'], ports: ['http:8080', 'metrics:9090'] },
      ],
    );
  });

  it('publishNotReadyAddresses lists unready Pods as ready; past 1000 addresses the subsets are truncated', () => {
    const service = { name: 'web', ipFamily: 'IPv4' as const, publishNotReadyAddresses: true, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] };
    const pods = Array.from({ length: MAX_ENDPOINT_ADDRESSES + 5 }, (_, i) => pod(`p${i}`, `10.1.${Math.floor(i / 250)}.${i % 250}`, i % 2 === 0));
    const { subsets, truncated } = endpointsSubsets(service, pods);
    assert.equal(truncated, true);
    assert.equal(subsets.length, 1);
    assert.equal(subsets[0]!.addresses?.length, MAX_ENDPOINT_ADDRESSES);
    assert.equal(subsets[0]!.notReadyAddresses, undefined);
  });
});
