/**
 * The endpoints of the EndpointSlices the endpointslice controller writes for one Service and IP
 * family (upstream endpointslice `reconciler.go`, `utils.go` podToEndpoint): every Pod that is not
 * terminal and has an address of the family, terminating ones included (`ready` false), grouped
 * by the ports the Service reaches on them, at most 100 per slice; Pods on a Node that does not
 * exist are skipped unless the Service publishes not-ready addresses.
 */
import type { BuiltinObject } from '../builtin/behaviour.ts';
import {
  addressOf,
  type EndpointPort,
  endpointPortOf,
  hostnameOf,
  isReady,
  isTerminating,
  nodeNameOf,
  type PodReference,
  podReferenceOf,
  shouldBeInEndpoints,
} from './pod-addresses.ts';
import type { ServiceShape } from './endpoints-subsets.ts';

/** MAX_ENDPOINTS_PER_SLICE is kube-controller-manager's `--max-endpoints-per-slice` default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** SliceEndpoint is one `endpoints[]` entry of an EndpointSlice. */
export interface SliceEndpoint {
  readonly addresses: string[];
  readonly conditions: { readonly ready: boolean; readonly serving: boolean; readonly terminating: boolean };
  readonly hostname?: string;
  readonly targetRef: PodReference;
  readonly nodeName?: string;
  readonly zone?: string;
}

/** SlicePort is an EndpointSlice port: its name is a pointer, "" for an unnamed Service port. */
export interface SlicePort {
  readonly name: string;
  readonly port: number;
  readonly protocol: string;
  readonly appProtocol?: string;
}

/** DesiredSlice is one slice's content: its ports and endpoints. */
export interface DesiredSlice {
  readonly ports: SlicePort[];
  readonly endpoints: SliceEndpoint[];
}

/** NodeFacts are what the controller reads of the Nodes: which exist, and their zone label. */
export type NodeZones = ReadonlyMap<string, string | undefined>;

const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** zonesOf reads the Nodes' zones. */
export function zonesOf(nodes: readonly BuiltinObject[]): Map<string, string | undefined> {
  return new Map(nodes.map((node) => [node.metadata.name ?? '', node.metadata.labels?.[ZONE_LABEL]]));
}

function slicePort(port: EndpointPort): SlicePort {
  return { name: port.name ?? '', port: port.port, protocol: port.protocol, ...(port.appProtocol === undefined ? {} : { appProtocol: port.appProtocol }) };
}

/** portsKey identifies a port list (slices group endpoints by it). */
export function portsKey(ports: readonly SlicePort[]): string {
  return JSON.stringify([...ports].map((port) => [port.name, port.port, port.protocol, port.appProtocol ?? '']).sort());
}

/** desiredSlices are the slices' contents for the Service's `family` (its `addressType`); none when no Pod is listed (a placeholder is the writer's). */
export function desiredSlices(service: ServiceShape, pods: readonly BuiltinObject[], nodes: NodeZones): DesiredSlice[] {
  const groups = new Map<string, DesiredSlice>();
  for (const pod of pods) {
    if (!shouldBeInEndpoints(pod, true)) continue;
    const ip = addressOf(pod, service.ipFamily);
    if (ip === undefined) continue;
    const nodeName = nodeNameOf(pod);
    if (!nodes.has(nodeName ?? '') && !service.publishNotReadyAddresses) continue;
    const ports = service.ports
      .map((port) => endpointPortOf(pod, port))
      .filter((port): port is EndpointPort => port !== undefined)
      .map(slicePort);
    const serving = isReady(pod);
    const terminating = isTerminating(pod);
    const hostname = hostnameOf(pod, service.name);
    const zone = nodeName === undefined ? undefined : nodes.get(nodeName);
    const endpoint: SliceEndpoint = {
      addresses: [ip],
      conditions: { ready: service.publishNotReadyAddresses || (serving && !terminating), serving, terminating },
      ...(hostname === undefined ? {} : { hostname }),
      targetRef: podReferenceOf(pod),
      ...(nodeName === undefined ? {} : { nodeName }),
      ...(zone === undefined ? {} : { zone }),
    };
    const key = portsKey(ports);
    let group = groups.get(key);
    if (group === undefined) {
      group = { ports, endpoints: [] };
      groups.set(key, group);
    }
    group.endpoints.push(endpoint);
  }
  const slices: DesiredSlice[] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.endpoints.length; start += MAX_ENDPOINTS_PER_SLICE) {
      slices.push({ ports: group.ports, endpoints: group.endpoints.slice(start, start + MAX_ENDPOINTS_PER_SLICE) });
    }
  }
  return slices;
}
