/**
 * kube-apiserver's APIService controllers, on the store's change feed: autoregistration of the
 * local APIServices and of the CRDs' group-versions (apiservice-registration.ts), and the
 * availability controllers that write each APIService's `Available` condition
 * (kube-aggregator v0.32 `pkg/controllers/status/local` and `.../remote`, with their reasons and
 * message texts). Nothing is proxied here, so a Service-backed APIService whose Service, port and
 * endpoints check out still fails the discovery check, as it does on a real apiserver that cannot
 * reach the Service's cluster IP.
 */
import type { Store, Subscription } from '../../../store/index.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { storeKindOf } from '../builtin/store-kinds.ts';
import { formatTime } from '../apimachinery/registry.ts';
import { listOf, recordAt } from './pod-spec.ts';
import { AUTOMANAGED_LABEL, customResourceApiServices, type GroupVersion, localApiServices } from './apiservice-registration.ts';
import { type APIServiceCondition, localAvailableCondition, withCondition } from '../builtin/apiservices.ts';

/** API_SERVICE_CONTROLLER_MANAGER is the field manager of the controllers' writes (they run inside kube-apiserver). */
export const API_SERVICE_CONTROLLER_MANAGER = 'kube-apiserver';

const SERVICES = storeKindOf({ group: '', resource: 'services' });
const ENDPOINTS = storeKindOf({ group: '', resource: 'endpoints' });

/** The views the controllers write through: the APIService resource and its `/status`. */
export interface ApiServiceViews {
  readonly main: AnyView;
  readonly status: AnyView;
}

function conditionsOf(apiService: BuiltinObject): APIServiceCondition[] {
  return listOf(recordAt(apiService, 'status')?.['conditions']) as unknown as APIServiceCondition[];
}

/** ApiServiceController registers the automanaged APIServices and keeps every APIService's availability. */
export class ApiServiceController {
  #subscription: Subscription | undefined;
  #pending = new Set<string>();
  #customPending = false;
  #running: Promise<void> | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;

  /** lastError is the last unexpected failure (the next change retries), for diagnostics. */
  lastError: unknown;

  constructor(
    readonly store: Store,
    readonly registry: GenericRegistry,
    readonly views: ApiServiceViews,
    /** builtin are the built-in group-versions served. */
    readonly builtin: readonly GroupVersion[],
    /** custom are the custom resources' group-versions served now. */
    readonly custom: () => readonly GroupVersion[],
    readonly now: () => number,
  ) {}

  /**
   * startInBackground starts the controllers without holding up the cluster's first request, as
   * the apiserver's autoregistration runs after it starts serving; idle() waits for it.
   */
  startInBackground(): void {
    this.#starting = this.start().catch((error: unknown) => {
      this.lastError = error;
    });
  }

  /** start registers the local APIServices, then follows APIServices, Services and Endpoints on the change feed. */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    if (this.#stopped) return;
    const onReset = (): void => {
      if (!this.#stopped) this.startInBackground();
    };
    const apiServices = this.views.main.storeKind;
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        if (change.kind === apiServices) {
          if (change.type !== 'deleted') this.#queue(change.key);
        } else {
          // A Service or its Endpoints changed: every APIService backed by it is checked again.
          void this.#queueBackedBy(change.key).catch((error: unknown) => (this.lastError = error));
        }
      },
      { kinds: [apiServices, SERVICES, ENDPOINTS], onReset },
    );
    if (this.#stopped) {
      this.#subscription.close();
      return;
    }
    for (const apiService of localApiServices(this.builtin)) if (!this.#stopped) await this.#createMissing(apiService);
    this.#customPending = true;
    for (const record of await this.store.list(apiServices)) this.#pending.add(record.key);
    this.#kick();
    while (this.#running !== undefined) await this.#running;
  }

  /** customResourcesChanged registers (or removes) the custom resources' APIServices after the served CRDs changed. */
  customResourcesChanged(): void {
    this.#customPending = true;
    this.#kick();
  }

  /** stop detaches from the change feed and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    this.#subscription?.close();
    await this.#running;
  }

  /** idle resolves once the start is done and nothing is waiting to be synced (tests wait on it). */
  async idle(): Promise<void> {
    await this.#starting;
    while (this.#running !== undefined) await this.#running;
  }

  #queue(name: string): void {
    this.#pending.add(name);
    this.#kick();
  }

  async #queueBackedBy(serviceKey: string): Promise<void> {
    for (const record of await this.store.list<BuiltinObject>(this.views.main.storeKind)) {
      const service = recordAt(record.value, 'spec', 'service');
      if (service !== undefined && `${String(service['namespace'] ?? '')}/${String(service['name'] ?? '')}` === serviceKey) this.#queue(record.key);
    }
  }

  #kick(): void {
    this.#running ??= this.#loop()
      .catch((error: unknown) => {
        // Background work never takes the server down (the store may be closing).
        this.lastError = error;
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      if (this.#customPending) {
        this.#customPending = false;
        await this.#syncCustomResources();
        continue;
      }
      const name = this.#pending.values().next().value;
      if (name === undefined) return;
      this.#pending.delete(name);
      await this.#syncAvailability(name);
    }
  }

  #scope(view: AnyView): RequestScope {
    return { view, group: 'apiregistration.k8s.io', namespace: undefined };
  }

  async #createMissing(apiService: { readonly metadata: { readonly name: string } }): Promise<void> {
    if ((await this.store.get(this.views.main.storeKind, apiService.metadata.name)) !== undefined) return;
    try {
      await this.registry.create(this.#scope(this.views.main), apiService as never, { dryRun: false, fieldManager: API_SERVICE_CONTROLLER_MANAGER });
    } catch (error) {
      // Another replica registered it first.
      if (!(error instanceof StatusError) || error.reason !== 'AlreadyExists') throw error;
    }
  }

  async #syncCustomResources(): Promise<void> {
    const wanted = customResourceApiServices(this.custom());
    for (const apiService of wanted) await this.#createMissing(apiService);
    const names = new Set(wanted.map((apiService) => apiService.metadata.name));
    for (const record of await this.store.list<BuiltinObject>(this.views.main.storeKind)) {
      if (record.value.metadata.labels?.[AUTOMANAGED_LABEL] !== 'true' || names.has(record.key)) continue;
      try {
        await this.registry.delete(this.#scope(this.views.main), record.key, { dryRun: false, preconditions: undefined });
      } catch (error) {
        if (!(error instanceof StatusError) || error.reason !== 'NotFound') throw error;
      }
    }
  }

  /** availabilityOf is the condition the local or the remote availability controller writes for `apiService`. */
  async #availabilityOf(apiService: BuiltinObject): Promise<APIServiceCondition> {
    const now = this.now();
    const reference = recordAt(apiService, 'spec', 'service');
    if (reference === undefined) return localAvailableCondition(now);
    const namespace = String(reference['namespace'] ?? '');
    const name = String(reference['name'] ?? '');
    const port = typeof reference['port'] === 'number' ? reference['port'] : 443;
    const at = (status: string, reason: string, message: string): APIServiceCondition => ({
      type: 'Available',
      status,
      lastTransitionTime: formatTime(now),
      reason,
      message,
    });
    const service = (await this.store.get<BuiltinObject>(SERVICES, `${namespace}/${name}`))?.value;
    if (service === undefined) return at('False', 'ServiceNotFound', `service/${name} in ${JSON.stringify(namespace)} is not present`);
    const spec = recordAt(service, 'spec') ?? {};
    if ((spec['type'] ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = listOf(spec['ports']).find((entry) => entry['port'] === port);
      if (servicePort === undefined) return at('False', 'ServicePortError', `service/${name} in ${JSON.stringify(namespace)} is not listening on port ${port}`);
      const portName = typeof servicePort['name'] === 'string' ? servicePort['name'] : '';
      const endpoints = (await this.store.get<BuiltinObject>(ENDPOINTS, `${namespace}/${name}`))?.value;
      if (endpoints === undefined) return at('False', 'EndpointsNotFound', `cannot find endpoints for service/${name} in ${JSON.stringify(namespace)}`);
      const active = listOf(endpoints['subsets']).some(
        (subset) => listOf(subset['addresses']).length > 0 && listOf(subset['ports']).some((entry) => (entry['name'] ?? '') === portName),
      );
      if (!active) {
        return at(
          'False',
          'MissingEndpoints',
          `endpoints for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}`,
        );
      }
    }
    // The discovery check: the aggregator resolves the Service to its cluster IP, which nothing here serves.
    const host = spec['type'] === 'ExternalName' ? String(spec['externalName'] ?? '') : String(spec['clusterIP'] ?? '');
    const group = String(recordAt(apiService, 'spec')?.['group'] ?? '');
    const version = String(recordAt(apiService, 'spec')?.['version'] ?? '');
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}${apiService.metadata.name === 'v1.' ? `/api/${version}` : `/apis/${group}/${version}`}`;
    return at(
      'False',
      'FailedDiscoveryCheck',
      `failing or missing response from ${url}: Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
  }

  async #syncAvailability(name: string): Promise<void> {
    const record = await this.store.get<BuiltinObject>(this.views.main.storeKind, name);
    if (record === undefined) return;
    const condition = await this.#availabilityOf(record.value);
    const current = conditionsOf(record.value);
    const next = withCondition(current, condition);
    if (JSON.stringify(next) === JSON.stringify(current)) return;
    try {
      await this.registry.update(
        this.#scope(this.views.status),
        name,
        (object) => {
          const base = (object ?? record.value) as BuiltinObject;
          return { ...base, status: { ...(recordAt(base, 'status') ?? {}), conditions: withCondition(conditionsOf(base), condition) } } as never;
        },
        { dryRun: false, fieldManager: API_SERVICE_CONTROLLER_MANAGER, allowCreate: false },
      );
    } catch (error) {
      // Deleted meanwhile, or changed by another writer: that change queues it again.
      if (!(error instanceof StatusError) || (error.reason !== 'NotFound' && error.reason !== 'Conflict')) throw error;
    }
  }
}
