/**
 * kube-controller-manager's endpoints and endpointslice controllers, on the store's change feed:
 * for every Service with a selector (not ExternalName), the Endpoints of the same name and the
 * Service-owned EndpointSlices (label `kubernetes.io/service-name`, managed by
 * `endpointslice-controller.k8s.io`, one set per IP family) follow the Pods the selector matches
 * — their addresses, readiness, termination and the ports the Service reaches on them. A Service
 * without a selector keeps what its users write. A deleted Service's Endpoints are deleted (its
 * slices go with it by the garbage collector). A write by someone else to a managed slice is
 * put right on the sync it triggers; to an Endpoints, on the Service's next sync (only its deletion triggers one). Runs as a singleton among replicas; on start it
 * syncs every Service and removes Endpoints whose Service is gone, as upstream's start does.
 */
import type { Clock } from '../../../lib/clock.ts';
import type { Change, Store } from '../../../store/index.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { storeKindOf } from '../builtin/store-kinds.ts';
import { FeedController } from '../feed-controller.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';
import { type DesiredSlice, desiredSlices, portsKey, type SliceEndpoint, type SlicePort, zonesOf } from './endpoint-slices.ts';
import { endpointsSubsets, type ServiceShape } from './endpoints-subsets.ts';
import type { IpFamily, ServicePort } from './pod-addresses.ts';

/** ENDPOINTS_CONTROLLER_MANAGER is the field manager of the controllers' writes. */
export const ENDPOINTS_CONTROLLER_MANAGER = 'kube-controller-manager';

/** The labels and annotations the controllers write. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY_CONTROLLER = 'endpointslice-controller.k8s.io';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';

const SERVICES = storeKindOf({ group: '', resource: 'services' });
const PODS = storeKindOf({ group: '', resource: 'pods' });
const NODES = storeKindOf({ group: '', resource: 'nodes' });
const ENDPOINTS = storeKindOf({ group: '', resource: 'endpoints' });
const SLICES = storeKindOf({ group: 'discovery.k8s.io', resource: 'endpointslices' });

const FOLLOWED: ReadonlySet<string> = new Set([SERVICES, PODS, NODES, ENDPOINTS, SLICES]);

/** The views the controllers write through. */
export interface EndpointsViews {
  readonly endpoints: AnyView;
  readonly endpointSlices: AnyView;
}

type Labels = Readonly<Record<string, string>>;

function selectorOf(service: BuiltinObject): Labels | undefined {
  const spec = recordAt(service, 'spec');
  if (spec?.['type'] === 'ExternalName') return undefined;
  const selector = recordAt(spec, 'selector');
  if (selector === undefined || Object.keys(selector).length === 0) return undefined;
  return selector as Labels;
}

function matches(selector: Labels, labels: Labels | undefined): boolean {
  for (const [key, value] of Object.entries(selector)) if (labels?.[key] !== value) return false;
  return true;
}

function shapeOf(service: BuiltinObject, family: IpFamily): ServiceShape {
  const spec = recordAt(service, 'spec');
  return {
    name: service.metadata.name ?? '',
    ports: listOf(spec?.['ports']) as unknown as ServicePort[],
    ipFamily: family,
    publishNotReadyAddresses: spec?.['publishNotReadyAddresses'] === true,
  };
}

function familiesOf(service: BuiltinObject): IpFamily[] {
  const families = (recordAt(service, 'spec')?.['ipFamilies'] as unknown[] | undefined)?.filter(
    (family): family is IpFamily => family === 'IPv4' || family === 'IPv6',
  );
  return families === undefined || families.length === 0 ? ['IPv4'] : families;
}

function isHeadless(service: BuiltinObject): boolean {
  return recordAt(service, 'spec')?.['clusterIP'] === 'None';
}

/** rfc3339Nano writes a millisecond instant as Go's RFC3339Nano does (trailing zeros of the fraction dropped). */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** stableJson serialises with keys sorted, so two equal objects compare equal whatever their key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

function serviceKeyOfSlice(slice: KubeObject): string | undefined {
  const labels = slice.metadata.labels;
  if (labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_CONTROLLER) return undefined;
  const service = labels[SERVICE_NAME_LABEL];
  return service === undefined ? undefined : `${slice.metadata.namespace ?? ''}/${service}`;
}

/** EndpointsController keeps every selector Service's Endpoints and EndpointSlices. */
export class EndpointsController extends FeedController<string> {
  /** Services with a selector, per namespace, by name. */
  readonly #selectors = new Map<string, Map<string, Labels>>();
  /** The labels each Pod had when last seen (a relabelled Pod leaves the Services it matched). */
  readonly #podLabels = new Map<string, Labels | undefined>();
  /** `kind key@revision` of the controllers' own writes, which trigger nothing. */
  readonly #ours = new Set<string>();

  constructor(
    store: Store,
    readonly registry: GenericRegistry,
    readonly views: EndpointsViews,
    readonly clock: Clock,
  ) {
    super(store);
  }

  protected handle(key: string): Promise<void> {
    return this.#sync(key);
  }

  protected observe(change: Change): void {
    if (FOLLOWED.has(change.kind)) this.#observe(change);
  }

  protected async relist(): Promise<void> {
    for (const record of await this.store.list<BuiltinObject>(PODS)) this.#podLabels.set(record.key, record.value.metadata.labels);
    const services = await this.store.list<BuiltinObject>(SERVICES);
    for (const record of services) {
      this.#index(record.key, record.value);
      this.queue.add(record.key);
    }
    // Endpoints whose Service is gone (deleted while no controller ran) are removed by their sync.
    const live = new Set(services.map((record) => record.key));
    for (const record of await this.store.list(ENDPOINTS)) if (!live.has(record.key)) this.queue.add(record.key);
  }

  #index(key: string, service: BuiltinObject | undefined): void {
    const [namespace = '', name = ''] = key.split('/');
    let inNamespace = this.#selectors.get(namespace);
    const selector = service === undefined ? undefined : selectorOf(service);
    if (selector === undefined) {
      inNamespace?.delete(name);
      return;
    }
    if (inNamespace === undefined) {
      inNamespace = new Map();
      this.#selectors.set(namespace, inNamespace);
    }
    inNamespace.set(name, selector);
  }

  #observe(change: Change): void {
    const own = `${change.kind} ${change.key}@${change.revision}`;
    if (this.#ours.delete(own)) return;
    const value = change.value as BuiltinObject;
    switch (change.kind) {
      case SERVICES:
        this.#index(change.key, change.type === 'deleted' ? undefined : value);
        this.queue.add(change.key);
        return;
      case PODS: {
        const namespace = change.key.slice(0, change.key.indexOf('/'));
        const before = this.#podLabels.get(change.key);
        const after = change.type === 'deleted' ? undefined : value.metadata.labels;
        if (change.type === 'deleted') this.#podLabels.delete(change.key);
        else this.#podLabels.set(change.key, after);
        for (const [name, selector] of this.#selectors.get(namespace) ?? []) {
          if (matches(selector, after) || matches(selector, before)) this.queue.add(`${namespace}/${name}`);
        }
        return;
      }
      case NODES:
        // A Node that appears or goes changes which Pods the slices may list.
        if (change.type !== 'updated')
          for (const [namespace, services] of this.#selectors) for (const name of services.keys()) this.queue.add(`${namespace}/${name}`);
        return;
      case ENDPOINTS:
        // Only a deletion is work (the Service's Endpoints are made again), as upstream's informer
        // handler: an Endpoints written without a Service stays until that Service's next sync.
        if (change.type === 'deleted') this.queue.add(change.key);
        return;
      case SLICES: {
        const service = serviceKeyOfSlice(value);
        if (service !== undefined) this.queue.add(service);
        return;
      }
    }
  }

  #scope(view: AnyView, namespace: string): RequestScope {
    return { view, group: view.group, namespace };
  }

  #remember(kind: string, key: string, object: KubeObject): void {
    // A write whose change came through before it returned is never taken out: keep the set bounded.
    if (this.#ours.size > 10_000) this.#ours.clear();
    this.#ours.add(`${kind} ${key}@${object.metadata.resourceVersion ?? ''}`);
  }

  async #sync(key: string): Promise<void> {
    if (this.stopped) return;
    const [namespace = '', name = ''] = key.split('/');
    const service = (await this.store.get<BuiltinObject>(SERVICES, key))?.value;
    if (service === undefined) {
      await this.#deleteEndpoints(namespace, name);
      return;
    }
    const selector = selectorOf(service);
    if (selector === undefined) return;
    const pods = (await this.store.list<BuiltinObject>(PODS, { prefix: `${namespace}/` }))
      .map((record) => record.value)
      .filter((pod) => matches(selector, pod.metadata.labels));
    const now = this.clock.now();
    await this.#syncEndpoints(service, pods, now);
    const nodes = zonesOf((await this.store.list<BuiltinObject>(NODES)).map((record) => record.value));
    await this.#syncSlices(service, pods, nodes, now);
  }

  async #deleteEndpoints(namespace: string, name: string): Promise<void> {
    if ((await this.store.get(ENDPOINTS, `${namespace}/${name}`)) === undefined) return;
    try {
      await this.registry.delete(this.#scope(this.views.endpoints, namespace), name, { dryRun: false, preconditions: undefined });
    } catch (error) {
      if (!(error instanceof StatusError) || error.reason !== 'NotFound') throw error;
    }
  }

  #labelsOf(service: BuiltinObject, extra: Labels = {}): Record<string, string> {
    return { ...service.metadata.labels, ...(isHeadless(service) ? { [HEADLESS_LABEL]: '' } : {}), ...extra };
  }

  async #syncEndpoints(service: BuiltinObject, pods: readonly BuiltinObject[], now: number): Promise<void> {
    const namespace = service.metadata.namespace ?? '';
    const name = service.metadata.name ?? '';
    const { subsets, truncated } = endpointsSubsets(shapeOf(service, familiesOf(service)[0]!), pods);
    const labels = this.#labelsOf(service);
    const existing = (await this.store.get<BuiltinObject>(ENDPOINTS, `${namespace}/${name}`))?.value;
    const annotationsOf = (current: Record<string, string> | undefined): Record<string, string> => {
      const { [OVER_CAPACITY_ANNOTATION]: _over, [TRIGGER_TIME_ANNOTATION]: _trigger, ...rest } = current ?? {};
      return { ...rest, [TRIGGER_TIME_ANNOTATION]: rfc3339Nano(now), ...(truncated ? { [OVER_CAPACITY_ANNOTATION]: 'truncated' } : {}) };
    };
    const scope = this.#scope(this.views.endpoints, namespace);
    if (existing === undefined) {
      const created = await this.registry
        .create(scope, { metadata: { name, labels, annotations: annotationsOf(undefined) }, subsets } as KubeObject, {
          dryRun: false,
          fieldManager: ENDPOINTS_CONTROLLER_MANAGER,
        })
        .catch((error: unknown) => {
          // Made meanwhile (a user, another writer): the next change syncs again.
          if (error instanceof StatusError && (error.reason === 'AlreadyExists' || error.reason === 'NotFound' || error.reason === 'Forbidden'))
            return undefined;
          throw error;
        });
      if (created !== undefined) this.#remember(ENDPOINTS, `${namespace}/${name}`, created.object);
      return;
    }
    const overCapacity = existing.metadata.annotations?.[OVER_CAPACITY_ANNOTATION] === 'truncated';
    if (
      stableJson(existing['subsets'] ?? []) === stableJson(subsets) &&
      stableJson(existing.metadata.labels ?? {}) === stableJson(labels) &&
      overCapacity === truncated
    ) {
      return;
    }
    const updated = await this.#update(scope, name, (current) => ({
      ...current,
      metadata: { ...current.metadata, labels, annotations: annotationsOf(current.metadata.annotations) },
      subsets,
    }));
    if (updated !== undefined) this.#remember(ENDPOINTS, `${namespace}/${name}`, updated);
  }

  async #update(scope: RequestScope, name: string, change: (current: KubeObject) => KubeObject): Promise<KubeObject | undefined> {
    try {
      const result = await this.registry.update(scope, name, (current) => change(current!), {
        dryRun: false,
        fieldManager: ENDPOINTS_CONTROLLER_MANAGER,
        allowCreate: false,
      });
      return result.object;
    } catch (error) {
      if (error instanceof StatusError && (error.reason === 'NotFound' || error.reason === 'Conflict')) return undefined;
      throw error;
    }
  }

  async #syncSlices(service: BuiltinObject, pods: readonly BuiltinObject[], nodes: ReadonlyMap<string, string | undefined>, now: number): Promise<void> {
    const namespace = service.metadata.namespace ?? '';
    const name = service.metadata.name ?? '';
    const scope = this.#scope(this.views.endpointSlices, namespace);
    const existing = (await this.store.list<BuiltinObject>(SLICES, { prefix: `${namespace}/` }))
      .map((record) => record.value)
      .filter((slice) => serviceKeyOfSlice(slice) === `${namespace}/${name}`);
    const families = familiesOf(service);
    const labels = this.#labelsOf(service, { [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY_CONTROLLER });
    const owner = { apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
    const unused = new Set(existing);
    for (const family of families) {
      const desired = desiredSlices(shapeOf(service, family), pods, nodes);
      // No endpoints: one placeholder slice, without ports.
      const wanted: DesiredSlice[] = desired.length === 0 ? [{ ports: [], endpoints: [] }] : desired;
      for (const slice of wanted) {
        const match = [...unused].find(
          (candidate) => candidate['addressType'] === family && portsKey((candidate['ports'] as SlicePort[] | undefined) ?? []) === portsKey(slice.ports),
        );
        if (match !== undefined) {
          unused.delete(match);
          await this.#updateSlice(scope, match, slice, labels, owner, now);
          continue;
        }
        const created = await this.registry
          .create(
            scope,
            {
              metadata: { generateName: `${name}-`, labels, annotations: { [TRIGGER_TIME_ANNOTATION]: rfc3339Nano(now) }, ownerReferences: [owner] },
              addressType: family,
              endpoints: slice.endpoints,
              ...(slice.ports.length === 0 ? {} : { ports: slice.ports }),
            } as KubeObject,
            { dryRun: false, fieldManager: ENDPOINTS_CONTROLLER_MANAGER },
          )
          .catch((error: unknown) => {
            if (error instanceof StatusError && (error.reason === 'NotFound' || error.reason === 'Forbidden')) return undefined;
            throw error;
          });
        if (created !== undefined) this.#remember(SLICES, `${namespace}/${created.object.metadata.name ?? ''}`, created.object);
      }
    }
    for (const slice of unused) {
      try {
        await this.registry.delete(scope, slice.metadata.name ?? '', { dryRun: false, preconditions: { uid: slice.metadata.uid ?? '' } });
      } catch (error) {
        if (!(error instanceof StatusError) || (error.reason !== 'NotFound' && error.reason !== 'Conflict')) throw error;
      }
    }
  }

  async #updateSlice(
    scope: RequestScope,
    current: BuiltinObject,
    slice: DesiredSlice,
    labels: Labels,
    owner: Record<string, unknown>,
    now: number,
  ): Promise<void> {
    const endpoints = (current['endpoints'] as SliceEndpoint[] | null | undefined) ?? [];
    if (
      stableJson(endpoints) === stableJson(slice.endpoints) &&
      stableJson(current.metadata.labels ?? {}) === stableJson(labels) &&
      stableJson(current.metadata.ownerReferences ?? []) === stableJson([owner])
    ) {
      return;
    }
    const name = current.metadata.name ?? '';
    const updated = await this.#update(scope, name, (fresh) => ({
      ...fresh,
      metadata: {
        ...fresh.metadata,
        labels: { ...labels },
        annotations: { ...fresh.metadata.annotations, [TRIGGER_TIME_ANNOTATION]: rfc3339Nano(now) },
        ownerReferences: [owner],
      },
      endpoints: slice.endpoints,
    }));
    if (updated !== undefined) this.#remember(SLICES, `${scope.namespace ?? ''}/${name}`, updated);
  }
}
