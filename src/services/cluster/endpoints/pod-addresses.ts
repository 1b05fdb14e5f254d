/**
 * What the endpoints and endpointslice controllers read off a Pod for a Service (upstream
 * `pkg/controller/endpoint/endpoints_controller.go`, `pkg/api/v1/pod/util.go` FindPort,
 * endpointslice `util/controller_utils.go` ShouldPodBeInEndpoints): whether it is listed at all,
 * its address of the Service's IP family, readiness, the port a Service port reaches on it, and
 * the hostname rule.
 */
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';

/** IpFamily is a Service's `spec.ipFamilies` entry. */
export type IpFamily = 'IPv4' | 'IPv6';

/** ServicePort is one `spec.ports` entry, defaulted. */
export interface ServicePort {
  readonly name?: string;
  readonly port: number;
  readonly protocol?: string;
  readonly targetPort?: number | string;
  readonly appProtocol?: string;
}

/** EndpointPort is a port as Endpoints and EndpointSlices list it. */
export interface EndpointPort {
  readonly name?: string;
  readonly port: number;
  readonly protocol: string;
  readonly appProtocol?: string;
}

/** PodReference is an address's `targetRef`. */
export interface PodReference {
  readonly kind: 'Pod';
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

function stringAt(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** isTerminal: phase Succeeded or Failed. */
export function isTerminal(pod: BuiltinObject): boolean {
  const phase = stringAt(recordAt(pod, 'status'), 'phase');
  return phase === 'Succeeded' || phase === 'Failed';
}

/** isTerminating: the Pod has a deletionTimestamp. */
export function isTerminating(pod: BuiltinObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/** isReady is podutil.IsPodReady: condition `Ready` is `True`. */
export function isReady(pod: BuiltinObject): boolean {
  return listOf(recordAt(pod, 'status')?.['conditions']).some((condition) => condition['type'] === 'Ready' && condition['status'] === 'True');
}

/** podIpsOf are the Pod's IPs, `status.podIPs` or, when only it is set, `status.podIP`. */
export function podIpsOf(pod: BuiltinObject): string[] {
  const status = recordAt(pod, 'status');
  const listed = listOf(status?.['podIPs'])
    .map((entry) => stringAt(entry, 'ip'))
    .filter((ip): ip is string => ip !== undefined);
  if (listed.length > 0) return listed;
  const single = stringAt(status, 'podIP');
  return single === undefined ? [] : [single];
}

/** shouldBeInEndpoints is ShouldPodBeInEndpoints: not terminal, has an IP, and not terminating unless those count. */
export function shouldBeInEndpoints(pod: BuiltinObject, includeTerminating: boolean): boolean {
  if (isTerminal(pod)) return false;
  if (podIpsOf(pod).length === 0) return false;
  return includeTerminating || !isTerminating(pod);
}

/** familyOf is the IP family of an address. */
export function familyOf(ip: string): IpFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** addressOf is the Pod's IP of `family`, if it has one. */
export function addressOf(pod: BuiltinObject, family: IpFamily): string | undefined {
  return podIpsOf(pod).find((ip) => familyOf(ip) === family);
}

/** findPort is podutil.FindPort: a number as is; a name the first container port with that name and protocol, else none. */
export function findPort(pod: BuiltinObject, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const spec = recordAt(pod, 'spec');
  // Regular containers, then restartable init containers (sidecars), as FindPort looks.
  const containers = [...listOf(spec?.['containers']), ...listOf(spec?.['initContainers']).filter((container) => container['restartPolicy'] === 'Always')];
  for (const container of containers) {
    for (const port of listOf(container['ports'])) {
      if (port['name'] === target && (port['protocol'] ?? 'TCP') === protocol && typeof port['containerPort'] === 'number') return port['containerPort'];
    }
  }
  return undefined;
}

/** endpointPortOf is the port a Service port reaches on the Pod, as both controllers list it. */
export function endpointPortOf(pod: BuiltinObject, servicePort: ServicePort): EndpointPort | undefined {
  const port = findPort(pod, servicePort);
  if (port === undefined) return undefined;
  return {
    ...(servicePort.name === undefined || servicePort.name === '' ? {} : { name: servicePort.name }),
    port,
    protocol: servicePort.protocol ?? 'TCP',
    ...(servicePort.appProtocol === undefined ? {} : { appProtocol: servicePort.appProtocol }),
  };
}

/** hostnameOf is the Pod's `spec.hostname` when its `spec.subdomain` is the Service's name. */
export function hostnameOf(pod: BuiltinObject, serviceName: string): string | undefined {
  const spec = recordAt(pod, 'spec');
  const hostname = stringAt(spec, 'hostname');
  return hostname !== undefined && stringAt(spec, 'subdomain') === serviceName ? hostname : undefined;
}

/** nodeNameOf is the Pod's `spec.nodeName`, if bound. */
export function nodeNameOf(pod: BuiltinObject): string | undefined {
  return stringAt(recordAt(pod, 'spec'), 'nodeName');
}

/** podReferenceOf is the address's `targetRef`. */
export function podReferenceOf(pod: BuiltinObject): PodReference {
  return { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
}
