/**
 * Service cluster IPs and node ports, allocated inside the writing transaction as the
 * apiserver's allocators do (upstream `pkg/registry/core/service/storage/alloc.go`,
 * `ipallocator`, `portallocator`): the service CIDR is kind's/kubeadm's 10.96.0.0/12 (the first
 * address is `default/kubernetes`'s), node ports come from 30000–32767. Addresses in use are read
 * from the stored Services, so they are released when a Service goes. Unrequested values are
 * taken lowest-free (dynamic IPs above the lower band kept for static ones, as upstream does),
 * not at random: tests can predict them.
 */
import ipaddr from 'ipaddr.js';
import type { Transaction } from '../../../store/index.ts';
import { GoLiteral, invalid, type FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { invalidObject } from '../apimachinery/status.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { storeKindOf } from './store-kinds.ts';

/** SERVICE_CIDR is the service cluster IP range. */
export const SERVICE_CIDR = '10.96.0.0/12';
/** KUBERNETES_SERVICE_IP is the first address of the range, `default/kubernetes`'s. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

const [NETWORK, PREFIX] = ipaddr.parseCIDR(SERVICE_CIDR);
const BASE = ipToNumber(NETWORK.toString());
const SIZE = 2 ** (32 - PREFIX);
// Upstream keeps the lower 1/16 of the range (at least 16, at most 256 addresses) for static IPs.
const STATIC_BAND = Math.min(256, Math.max(16, Math.floor(SIZE / 16)));

/** SERVICES_STORE_KIND is where Services live. */
export const SERVICES_STORE_KIND = storeKindOf({ group: '', resource: 'services' });

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function numberToIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function goStrings(values: readonly string[]): GoLiteral {
  return new GoLiteral(`[]string{${values.map((value) => JSON.stringify(value)).join(', ')}}`);
}

/** allocateServiceAddresses fills and checks `spec.clusterIP(s)` and node ports of a Service being written; throws the apiserver's 422. */
export async function allocateServiceAddresses(tx: Transaction, service: KubeObject, old: KubeObject | undefined): Promise<void> {
  const spec = recordAt(service, 'spec');
  if (spec === undefined) return;
  const key = `${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}`;
  const usedIps = new Set<string>();
  const usedPorts = new Set<number>();
  for (const record of await tx.list<KubeObject>(SERVICES_STORE_KIND)) {
    if (record.key === key) continue;
    const other = recordAt(record.value, 'spec');
    if (typeof other?.['clusterIP'] === 'string') usedIps.add(other['clusterIP']);
    for (const port of listOf(other?.['ports'])) if (typeof port['nodePort'] === 'number') usedPorts.add(port['nodePort']);
  }
  const errors: FieldError[] = [];
  const type = spec['type'];
  const oldIp = recordAt(old, 'spec')?.['clusterIP'];
  if (type === 'ExternalName') {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
  } else if (spec['clusterIP'] !== 'None') {
    const requested = typeof spec['clusterIP'] === 'string' && spec['clusterIP'] !== '' ? spec['clusterIP'] : undefined;
    if (requested !== undefined && requested !== oldIp) {
      const problem = ipProblem(requested, usedIps);
      if (problem !== undefined) errors.push(invalid('spec.clusterIPs', goStrings([requested]), `failed to allocate IP ${requested}: ${problem}`));
    }
    if (requested === undefined) {
      let next = BASE + STATIC_BAND;
      while (next < BASE + SIZE - 1 && usedIps.has(numberToIp(next))) next++;
      if (next >= BASE + SIZE - 1) throw new Error('failed to allocate a serviceIP: range is full');
      spec['clusterIP'] = numberToIp(next);
    }
    spec['clusterIPs'] = [spec['clusterIP']];
  } else {
    spec['clusterIPs'] = ['None'];
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    const ports = listOf(spec['ports']);
    const oldPorts = new Set(listOf(recordAt(old, 'spec')?.['ports']).map((port) => port['nodePort']));
    for (const [index, port] of ports.entries()) {
      const requested = port['nodePort'];
      if (typeof requested === 'number' && requested !== 0) {
        if (oldPorts.has(requested)) {
          usedPorts.add(requested);
          continue;
        }
        if (requested < NODE_PORT_MIN || requested > NODE_PORT_MAX) {
          errors.push(
            invalid(
              `spec.ports[${index}].nodePort`,
              requested,
              `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`,
            ),
          );
        } else if (usedPorts.has(requested)) {
          errors.push(invalid(`spec.ports[${index}].nodePort`, requested, 'provided port is already allocated'));
        }
        usedPorts.add(requested);
        continue;
      }
      let next = NODE_PORT_MIN;
      while (next <= NODE_PORT_MAX && usedPorts.has(next)) next++;
      if (next > NODE_PORT_MAX) throw new Error('failed to allocate a nodePort: range is full');
      port['nodePort'] = next;
      usedPorts.add(next);
    }
  }
  if (errors.length > 0) throw invalidObject({ group: '', kind: 'Service' }, service.metadata.name ?? '', errors);
}

function ipProblem(ip: string, used: ReadonlySet<string>): string | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(ip)) return `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`;
  const value = ipToNumber(ip);
  // The network and broadcast addresses are not handed out.
  if (value <= BASE || value >= BASE + SIZE - 1) return `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`;
  if (used.has(ip)) return 'provided IP is already allocated';
  return undefined;
}
