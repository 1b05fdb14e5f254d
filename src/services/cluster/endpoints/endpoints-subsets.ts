/**
 * The core v1 Endpoints the endpoints controller writes for a Service (upstream
 * `pkg/controller/endpoint/endpoints_controller.go` syncService, `pkg/api/v1/endpoints` RepackSubsets):
 * one address per listed Pod of the Service's first IP family, ready (or
 * `publishNotReadyAddresses`) in `addresses` and the rest in `notReadyAddresses`, terminating Pods
 * left out unless published; subsets repacked so Pods offering the same ports share one; at most
 * 1000 addresses (then annotated `over-capacity: truncated`).
 */
import type { BuiltinObject } from '../builtin/behaviour.ts';
import {
  addressOf,
  type EndpointPort,
  endpointPortOf,
  hostnameOf,
  type IpFamily,
  isReady,
  nodeNameOf,
  type PodReference,
  podReferenceOf,
  type ServicePort,
  shouldBeInEndpoints,
} from './pod-addresses.ts';

/** EndpointAddress is one `subsets[].addresses[]` entry. */
export interface EndpointAddress {
  readonly ip: string;
  readonly hostname?: string;
  readonly nodeName?: string;
  readonly targetRef: PodReference;
}

/** EndpointSubset is one `subsets[]` entry. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** MAX_ENDPOINT_ADDRESSES is maxCapacity: past it the Endpoints are truncated. */
export const MAX_ENDPOINT_ADDRESSES = 1000;

/** ServiceShape is what the controllers read of a Service. */
export interface ServiceShape {
  readonly name: string;
  readonly ports: readonly ServicePort[];
  readonly ipFamily: IpFamily;
  readonly publishNotReadyAddresses: boolean;
}

function portKey(port: EndpointPort): string {
  return `${port.name ?? ''}\u0000${port.port}\u0000${port.protocol}\u0000${port.appProtocol ?? ''}`;
}

function compareIp(a: string, b: string): number {
  // net.ParseIP bytes order: IPv4 by octets, IPv6 by groups.
  const parts = (ip: string) => (ip.includes(':') ? ip.split(':').map((group) => Number.parseInt(group || '0', 16)) : ip.split('.').map(Number));
  const left = parts(a);
  const right = parts(b);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function byAddress(a: EndpointAddress, b: EndpointAddress): number {
  return compareIp(a.ip, b.ip) || (a.targetRef.uid < b.targetRef.uid ? -1 : a.targetRef.uid > b.targetRef.uid ? 1 : 0);
}

/** endpointsSubsets are the subsets for a Service over the Pods its selector matches, and whether they were truncated. */
export function endpointsSubsets(service: ServiceShape, pods: readonly BuiltinObject[]): { subsets: EndpointSubset[]; truncated: boolean } {
  // Per port set (a sentinel for none: a headless Service without ports), its ready and not-ready addresses by ip+uid.
  const groups = new Map<string, { ports: EndpointPort[]; ready: Map<string, EndpointAddress>; notReady: Map<string, EndpointAddress> }>();
  for (const pod of pods) {
    if (!shouldBeInEndpoints(pod, service.publishNotReadyAddresses)) continue;
    const ip = addressOf(pod, service.ipFamily);
    if (ip === undefined) continue;
    const hostname = hostnameOf(pod, service.name);
    const nodeName = nodeNameOf(pod);
    const address: EndpointAddress = {
      ip,
      ...(hostname === undefined ? {} : { hostname }),
      ...(nodeName === undefined ? {} : { nodeName }),
      targetRef: podReferenceOf(pod),
    };
    const ready = service.publishNotReadyAddresses || isReady(pod);
    const ports =
      service.ports.length === 0 ? [] : service.ports.map((port) => endpointPortOf(pod, port)).filter((port): port is EndpointPort => port !== undefined);
    // Every Service port unresolvable on this Pod: it offers none of them.
    if (service.ports.length > 0 && ports.length === 0) continue;
    const key = ports.map(portKey).sort().join('\u0001');
    let group = groups.get(key);
    if (group === undefined) {
      group = { ports, ready: new Map(), notReady: new Map() };
      groups.set(key, group);
    }
    (ready ? group.ready : group.notReady).set(`${ip}/${address.targetRef.uid}`, address);
  }
  // Repacked: one subset per distinct set of addresses over the ports they all offer.
  const bySet = new Map<string, EndpointSubset>();
  for (const group of groups.values()) {
    const ready = [...group.ready.values()].sort(byAddress);
    const notReady = [...group.notReady.values()].sort(byAddress);
    const setKey = [...ready.map((a) => `r${a.ip}/${a.targetRef.uid}`), ...notReady.map((a) => `n${a.ip}/${a.targetRef.uid}`)].join(',');
    const subset = bySet.get(setKey);
    if (subset !== undefined && group.ports.length > 0) {
      subset.ports = [...(subset.ports ?? []), ...group.ports];
      continue;
    }
    bySet.set(setKey, {
      ...(ready.length === 0 ? {} : { addresses: ready }),
      ...(notReady.length === 0 ? {} : { notReadyAddresses: notReady }),
      ...(group.ports.length === 0 ? {} : { ports: group.ports }),
    });
  }
  const subsets = [...bySet.values()];
  for (const subset of subsets) subset.ports?.sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port);
  subsets.sort((a, b) => byAddress((a.addresses ?? a.notReadyAddresses)![0]!, (b.addresses ?? b.notReadyAddresses)![0]!));
  return truncate(subsets);
}

/** truncate keeps at most MAX_ENDPOINT_ADDRESSES addresses, ready ones first, as the controller's capacity rule. */
function truncate(subsets: EndpointSubset[]): { subsets: EndpointSubset[]; truncated: boolean } {
  const total = subsets.reduce((sum, subset) => sum + (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0), 0);
  if (total <= MAX_ENDPOINT_ADDRESSES) return { subsets, truncated: false };
  let room = MAX_ENDPOINT_ADDRESSES;
  const take = (list: EndpointAddress[] | undefined): EndpointAddress[] => {
    const kept = (list ?? []).slice(0, room);
    room -= kept.length;
    return kept;
  };
  const ready = subsets.map((subset) => take(subset.addresses));
  const notReady = subsets.map((subset) => take(subset.notReadyAddresses));
  const kept: EndpointSubset[] = [];
  subsets.forEach((subset, index) => {
    const addresses = ready[index]!;
    const notReadyAddresses = notReady[index]!;
    if (addresses.length === 0 && notReadyAddresses.length === 0) return;
    kept.push({
      ...(addresses.length === 0 ? {} : { addresses }),
      ...(notReadyAddresses.length === 0 ? {} : { notReadyAddresses }),
      ...(subset.ports === undefined ? {} : { ports: subset.ports }),
    });
  });
  return { subsets: kept, truncated: true };
}
