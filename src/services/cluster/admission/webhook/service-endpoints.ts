/**
 * Where a webhook's `clientConfig` points (1.32 `util/webhook/serviceresolver.go`, kube-apiserver's
 * endpoint routing): a `url` is dialled as written; a `service` reference has no cluster network
 * here, so it is dialled at an address its Endpoints (or, without them, its EndpointSlices) list —
 * the first ready address, at the endpoint port that serves the Service port — while the request
 * and the certificate check keep the Service's own name, `<svc>.<ns>.svc` (docs/cluster.md: point
 * the Endpoints at 127.0.0.1 and a kubebuilder configuration naming a Service works unchanged).
 */
import type { Store } from '../../../../store/index.ts';
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import { storeKindOf } from '../../builtin/store-kinds.ts';
import type { WebhookTarget } from './webhook-call.ts';

const SERVICES = storeKindOf({ group: '', resource: 'services' });
const ENDPOINTS = storeKindOf({ group: '', resource: 'endpoints' });
const ENDPOINT_SLICES = storeKindOf({ group: 'discovery.k8s.io', resource: 'endpointslices' });

/** ClientConfig is a webhook's `clientConfig`. */
export interface ClientConfig {
  readonly url?: string;
  readonly service?: { readonly namespace?: string; readonly name?: string; readonly path?: string; readonly port?: number };
  readonly caBundle?: string;
}

/** ResolveError is a clientConfig that names no reachable place; its message follows `failed to call webhook: ` in Go's words. */
export class ResolveError extends Error {
  override readonly name = 'ResolveError';
}

/** cleanPath is Go's path.Join("/", p): one leading slash, no empty or dot segments (envtest's `//validate-x`). */
export function cleanPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

function trustOf(config: ClientConfig): string | undefined {
  if (config.caBundle === undefined || config.caBundle === '') return undefined;
  return Buffer.from(config.caBundle, 'base64').toString('utf8');
}

interface ServicePort {
  readonly name?: string;
  readonly port?: number;
  readonly targetPort?: number | string;
}

/** resolveTarget finds where to send a webhook's calls. */
export async function resolveTarget(store: Store, config: ClientConfig): Promise<WebhookTarget> {
  const ca = trustOf(config);
  if (config.url !== undefined && config.url !== '') {
    let parsed: URL;
    try {
      parsed = new URL(config.url);
    } catch {
      throw new ResolveError(`parse "${config.url}": invalid URL`);
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const port = parsed.port === '' ? 443 : Number(parsed.port);
    const path = cleanPath(parsed.pathname);
    // The authority as written (URL drops a default :443 that Go's client keeps).
    const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(config.url)?.[1] ?? parsed.host;
    return { host, port, serverName: host, path, url: `https://${authority}${path}`, ca };
  }
  const reference = config.service ?? {};
  const namespace = reference.namespace ?? '';
  const name = reference.name ?? '';
  const port = reference.port ?? 443;
  const path = cleanPath(reference.path ?? '/');
  const serverName = `${name}.${namespace}.svc`;
  const url = `https://${serverName}:${port}${path}`;
  const service = (await store.get<KubeObject>(SERVICES, `${namespace}/${name}`))?.value as (KubeObject & { spec?: { ports?: ServicePort[] } }) | undefined;
  if (service === undefined) throw new ResolveError(`service "${name}" not found`);
  const servicePort = (service.spec?.ports ?? []).find((entry) => (entry.port ?? 0) === port);
  if (servicePort === undefined) throw new ResolveError(`no service port ${port} found for service "${name}"`);
  const address = (await fromEndpoints(store, namespace, name, servicePort)) ?? (await fromSlices(store, namespace, name, servicePort));
  if (address === undefined) throw new ResolveError(`no endpoints available for service "${name}"`);
  return { host: address.ip, port: address.port, serverName, path, url, ca };
}

type Address = { readonly ip: string; readonly port: number };

function targetPortOf(servicePort: ServicePort): number | undefined {
  if (typeof servicePort.targetPort === 'number') return servicePort.targetPort;
  if (servicePort.targetPort === undefined) return servicePort.port;
  return undefined;
}

/** fromEndpoints: the first ready address of a subset holding the port the Service port names (by name, else its number). */
async function fromEndpoints(store: Store, namespace: string, name: string, servicePort: ServicePort): Promise<Address | undefined> {
  const endpoints = (await store.get<KubeObject>(ENDPOINTS, `${namespace}/${name}`))?.value as
    | (KubeObject & { subsets?: { addresses?: { ip?: string }[]; ports?: { name?: string; port?: number }[] }[] })
    | undefined;
  for (const subset of endpoints?.subsets ?? []) {
    const ports = subset.ports ?? [];
    const matched =
      ports.find((entry) => (entry.name ?? '') === (servicePort.name ?? '') && (servicePort.name ?? '') !== '') ??
      ports.find((entry) => entry.port === targetPortOf(servicePort)) ??
      (ports.length === 1 ? ports[0] : undefined);
    const ip = subset.addresses?.find((address) => (address.ip ?? '') !== '')?.ip;
    if (matched?.port !== undefined && ip !== undefined) return { ip, port: matched.port };
  }
  return undefined;
}

/** fromSlices: the same from the EndpointSlices labelled `kubernetes.io/service-name: <name>` (ready or unset conditions). */
async function fromSlices(store: Store, namespace: string, name: string, servicePort: ServicePort): Promise<Address | undefined> {
  const slices = await store.list<KubeObject>(ENDPOINT_SLICES, { prefix: `${namespace}/` });
  for (const record of slices) {
    const slice = record.value as KubeObject & {
      endpoints?: { addresses?: string[]; conditions?: { ready?: boolean } }[];
      ports?: { name?: string; port?: number }[];
    };
    if (slice.metadata.labels?.['kubernetes.io/service-name'] !== name) continue;
    const ports = slice.ports ?? [];
    const matched =
      ports.find((entry) => (entry.name ?? '') === (servicePort.name ?? '') && (servicePort.name ?? '') !== '') ??
      ports.find((entry) => entry.port === targetPortOf(servicePort)) ??
      (ports.length === 1 ? ports[0] : undefined);
    const endpoint = (slice.endpoints ?? []).find((entry) => entry.conditions?.ready !== false && (entry.addresses ?? []).length > 0);
    if (matched?.port !== undefined && endpoint !== undefined) return { ip: endpoint.addresses![0]!, port: matched.port };
  }
  return undefined;
}
