/**
 * The cluster family's working parts, loaded on the first request to the family's paths rather
 * at start-up (start-up time: this module and its imports are most of the family's code): the
 * generic registry over the store, the served views, discovery, OpenAPI documents, event expiry,
 * and the namespaces every cluster starts with.
 */
import { builtinGoStructs } from './builtin/go-json-fields.ts';
import type { Spelling, Vocabulary } from '../../core/identifiers.ts';
import type { ServiceContext } from '../../core/service.ts';
import type { Store, Transaction } from '../../store/index.ts';
import type { KubeObject } from './apimachinery/object-meta.ts';
import { formatTime, GenericRegistry, type RegistryHooks, type RequestScope } from './apimachinery/registry.ts';
import { conflict } from './apimachinery/status.ts';
import { type HandlerContext, ViewIndex } from './apimachinery/handler-context.ts';
import { resolveTarget, serveResource } from './apimachinery/resource-handlers.ts';
import type { AnyView } from './apimachinery/strategy.ts';
import { ActiveWatches, DEFAULT_WATCH_SETTINGS, type WatchSettings } from './apimachinery/watch.ts';
import { CustomResourceCatalog } from './crd/catalog.ts';
import { createClusterAdmission } from './admission/cluster-admission.ts';
import { CRD_STORE_KIND, crdStatusView, crdView } from './crd/crd-resource.ts';
import { finalizeCrd, markTerminating, settleNames, terminatingCrds } from './crd/lifecycle.ts';
import type { ServedCustomResourceNames } from './crd/served-names.ts';
import type { CustomResourceDefinition } from './crd/types.ts';
import { Discovery, discoveryResourcesOf } from './discovery.ts';
import { EventExpiry } from './event-expiry.ts';
import { EventRecorder } from './event-recorder.ts';
import { EndpointsController } from './endpoints/endpoints-controller.ts';
import { GARBAGE_COLLECTOR_COMPONENT, GarbageCollector } from './garbage-collector/garbage-collector.ts';
import { OpenApiDocuments } from './openapi.ts';
import { ACCESS_REVIEW_SCHEMA_NAMES, AUTHORIZATION_V1_SCHEMAS } from './rbac/access-review-schemas.ts';
import { ACCESS_REVIEW_RESOURCES } from './rbac/access-reviews.ts';
import { SELF_SUBJECT_REVIEW_RESOURCE } from './authentication/self-subject-review.ts';
import { SELF_SUBJECT_REVIEW_SCHEMA_NAME } from './authentication/self-subject-review-schemas.ts';
import { TOKEN_REVIEW_RESOURCE } from './authentication/token-review.ts';
import { TOKEN_REVIEW_SCHEMA_NAME, TOKEN_SCHEMAS } from './authentication/token-schemas.ts';
import type { Rbac } from './rbac/rbac-service.ts';
import { seedBuiltinObjects } from './builtin/seed.ts';
import { allocateServiceAddresses, SERVICES_STORE_KIND } from './builtin/service-allocation.ts';
import { builtinViews } from './builtin/views.ts';
import { clusterRoleBindingsView } from './resources/cluster-role-bindings.ts';
import { clusterRolesView } from './resources/cluster-roles.ts';
import { coreEventsView, eventsV1View } from './resources/events.ts';
import { INITIAL_NAMESPACES, NAMESPACE_STORE_KIND, type Namespace, namespacesView, PROTECTED_NAMESPACES } from './resources/namespaces.ts';
import { roleBindingsView } from './resources/role-bindings.ts';
import { rolesView } from './resources/roles.ts';
import { ApiServiceController } from './resources/apiservice-controller.ts';
import { inDiscoveryOrder } from './resources/apiservice-registration.ts';
import { servePodStream } from './resources/pod-streams.ts';
import { ServiceAccountController } from './resources/service-account-controller.ts';
import { serviceAccountsView } from './resources/service-accounts.ts';
import { podGracePeriodSeconds } from './simulation/graceful-deletion.ts';
import type { SimulationSettings } from './simulation/settings.ts';

/** CLUSTER_VIEWS are every fixed resource view served, in discovery order: the dedicated strategies, the built-in kinds of the generic one, CustomResourceDefinitions. */
export const CLUSTER_VIEWS: readonly AnyView[] = [
  namespacesView,
  coreEventsView,
  serviceAccountsView,
  clusterRolesView,
  clusterRoleBindingsView,
  roleBindingsView,
  rolesView,
  eventsV1View,
  ...(builtinViews() as unknown as AnyView[]),
  crdView as unknown as AnyView,
  crdStatusView as unknown as AnyView,
];

/** API_SERVICE_VIEWS are the APIService views the APIService controllers write through. */
const API_SERVICE_VIEWS = {
  main: CLUSTER_VIEWS.find((view) => view.group === 'apiregistration.k8s.io' && view.resource === 'apiservices' && view.subresource === undefined)!,
  status: CLUSTER_VIEWS.find((view) => view.group === 'apiregistration.k8s.io' && view.resource === 'apiservices' && view.subresource === 'status')!,
};

/** ENDPOINTS_VIEWS are the views the endpoints and endpointslice controllers write through. */
const ENDPOINTS_VIEWS = {
  endpoints: CLUSTER_VIEWS.find((view) => view.group === '' && view.resource === 'endpoints' && view.subresource === undefined)!,
  endpointSlices: CLUSTER_VIEWS.find((view) => view.group === 'discovery.k8s.io' && view.resource === 'endpointslices' && view.subresource === undefined)!,
};

/** SERVED_GROUP_VERSIONS are the built-in group-versions served: every fixed view's and the create-only reviews'. */
const SERVED_GROUP_VERSIONS = [...CLUSTER_VIEWS, SELF_SUBJECT_REVIEW_RESOURCE, TOKEN_REVIEW_RESOURCE, ...ACCESS_REVIEW_RESOURCES].map(({ group, version }) => ({
  group,
  version,
}));

/** NAMESPACED_STORE_KINDS are where namespaced objects of every built-in kind live (keys `ns/name`), which a namespace's deletion empties. */
const NAMESPACED_STORE_KINDS: readonly string[] = [...new Set(CLUSTER_VIEWS.filter((view) => view.strategy.namespaced).map((view) => view.storeKind))];

/** CustomResourceHooks are what the registry hooks need of the served CRDs: their namespaced store kinds, and a Terminating CRD's cleanup to start. */
interface CustomResourceHooks {
  readonly namespacedStoreKinds: () => readonly string[];
  readonly finalize: (name: string) => void;
}

/**
 * registryHooks are the cross-resource rules: namespaces must exist and be active, some may not
 * go, a deleted one takes everything in it along; a deleted CRD is Terminating until its
 * instances are gone.
 */
function registryHooks(store: Store, custom: CustomResourceHooks): RegistryHooks {
  return {
    namespaceExists: async (tx: Transaction, namespace: string) => (await tx.get(NAMESPACE_STORE_KIND, namespace)) !== undefined,
    namespaceTerminating: async (tx: Transaction, namespace: string) =>
      ((await tx.get<Namespace>(NAMESPACE_STORE_KIND, namespace))?.value.metadata.deletionTimestamp ?? undefined) !== undefined,
    beforeDelete: (view: AnyView, object: KubeObject) =>
      view.storeKind === NAMESPACE_STORE_KIND && PROTECTED_NAMESPACES.has(object.metadata.name ?? '') ? 'this namespace may not be deleted' : undefined,
    deleteInstead: async (_tx: Transaction, view: AnyView, object: KubeObject, now: number, dryRun: boolean) => {
      if (view.storeKind === CRD_STORE_KIND) {
        // Already Terminating: the registry answers the object as it is (its finalizer holds it).
        if (object.metadata.deletionTimestamp !== undefined) return undefined;
        if (!dryRun) setImmediate(() => custom.finalize(object.metadata.name ?? ''));
        return markTerminating(object as CustomResourceDefinition, now);
      }
      if (view.storeKind !== NAMESPACE_STORE_KIND) return undefined;
      const name = object.metadata.name ?? '';
      if (object.metadata.deletionTimestamp !== undefined) {
        throw conflict(
          { group: '', resource: 'namespaces' },
          name,
          'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
        );
      }
      // As the namespace controller, once this DELETE has committed: remove the content, then the namespace.
      if (!dryRun) setImmediate(() => void finalizeNamespace(store, name, custom.namespacedStoreKinds()).catch(() => undefined));
      const namespace = object as Namespace;
      return { ...namespace, metadata: { ...namespace.metadata, deletionTimestamp: formatTime(now) }, status: { ...namespace.status, phase: 'Terminating' } };
    },
    afterDelete: async (tx: Transaction, view: AnyView, object: KubeObject) => {
      if (view.storeKind === NAMESPACE_STORE_KIND) await deleteNamespaceContent(tx, object.metadata.name ?? '', custom.namespacedStoreKinds());
    },
  };
}

/** deleteNamespaceContent removes every namespaced object of every kind in `namespace`, custom resources' included. */
async function deleteNamespaceContent(tx: Transaction, namespace: string, custom: readonly string[]): Promise<void> {
  for (const storeKind of [...NAMESPACED_STORE_KINDS, ...custom]) {
    for (const record of await tx.list(storeKind, { prefix: `${namespace}/` })) await tx.delete(storeKind, record.key);
  }
}

/**
 * finalizeNamespace is the namespace controller's work for one Terminating namespace: its content
 * goes, then the namespace itself (no other finalizer runs here). Retries briefly while the
 * marking write is not yet visible; does nothing for a namespace that is gone or not terminating.
 */
async function finalizeNamespace(store: Store, name: string, custom: readonly string[]): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const done = await store.transact(async (tx) => {
      const record = await tx.get<Namespace>(NAMESPACE_STORE_KIND, name);
      if (record === undefined) return true;
      if (record.value.metadata.deletionTimestamp === undefined) return false;
      await deleteNamespaceContent(tx, name, custom);
      // Other finalizers keep the namespace until they are removed (the registry then deletes it).
      if ((record.value.metadata.finalizers ?? []).length === 0) await tx.delete(NAMESPACE_STORE_KIND, name, { expectRevision: record.revision });
      return true;
    });
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** finalizeTerminatingNamespaces finishes deletions a stopped server left half done. */
async function finalizeTerminatingNamespaces(store: Store, custom: readonly string[]): Promise<void> {
  for (const record of await store.list<Namespace>(NAMESPACE_STORE_KIND)) {
    if (record.value.metadata.deletionTimestamp !== undefined) await finalizeNamespace(store, record.key, custom);
  }
}

/** ClusterRuntime is the loaded family. */
export interface ClusterRuntime {
  readonly handlers: HandlerContext;
  readonly resolveTarget: typeof resolveTarget;
  readonly serveResource: typeof serveResource;
  /** servePodStream answers a Pod's log, exec, attach and portforward (no container runs here). */
  readonly servePodStream: typeof servePodStream;
  /** discovery and openapi describe what is served now (rebuilt when the served CRDs change). */
  readonly discovery: Discovery;
  readonly openapi: OpenApiDocuments;
  /** customResources are the custom resource views served now (for the console and fault rules). */
  readonly customResources: () => readonly AnyView[];
  /** reseed creates again, after the store's state was replaced, the namespaces and default policy a cluster starts with. */
  reseed(): Promise<void>;
  /** idle resolves once the controllers running here (ServiceAccounts, APIServices, the garbage collector, endpoints) have nothing left to do. */
  idle(): Promise<void>;
  /** close ends every watch, stops event expiry and the aggregation controller (handing them to another replica). */
  close(): Promise<void>;
}

/** RuntimeOptions are what the runtime needs from the family's options. */
export interface RuntimeOptions {
  readonly groups: Vocabulary;
  readonly spelling: Spelling;
  readonly eventTtlSeconds: number;
  readonly watch: Partial<WatchSettings> | undefined;
  /** The family's authorization, whose policy and aggregation controller start with the runtime. */
  readonly rbac: Rbac;
  /** Whether the default RBAC policy is reconciled at start. */
  readonly bootstrapPolicy: boolean;
  /** Where the served custom resources' plurals are kept for the family's parts outside the runtime (fault rules). */
  readonly customResourceNames?: ServedCustomResourceNames;
  /** The workload simulation's settings with `--workloads simulate`; undefined runs none (envtest's behaviour). */
  readonly workloads?: SimulationSettings;
}

function randomFrom(context: ServiceContext): () => number {
  return () => context.ids.bytes(4).readUInt32BE(0) / 2 ** 32;
}

/** startClusterRuntime builds the family's parts, seeds the initial namespaces and starts RBAC (default policy, aggregation). */
export async function startClusterRuntime(context: ServiceContext, options: RuntimeOptions): Promise<ClusterRuntime> {
  let stopped = false;
  const finalizing = new Set<Promise<void>>();
  const finalize = (name: string): void => {
    const run = finalizeCrd(
      context.store,
      name,
      () => context.clock.now(),
      (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      () => stopped,
    )
      .catch(() => undefined)
      .finally(() => finalizing.delete(run));
    finalizing.add(run);
  };
  const admission = createClusterAdmission(
    context.store,
    () => registry,
    () => index,
    options.rbac.authorizer,
  );
  const registry = new GenericRegistry(
    context.store,
    context.clock,
    context.ids,
    {
      ...registryHooks(context.store, { namespacedStoreKinds: () => catalog.storeKinds(true), finalize }),
      admission: admission.chain,
      ...(options.workloads === undefined ? {} : { gracePeriodSeconds: podGracePeriodSeconds }),
      beforeWrite: async (tx, scope, object, old) => {
        await options.rbac.beforeWrite(tx, scope, object, old);
        await admission.beforeWrite(tx, scope, object, old);
        if (scope.view.storeKind === SERVICES_STORE_KIND) await allocateServiceAddresses(tx, object, old);
        // The naming and establishing controllers' status, written with the CRD (not for its own /status writes).
        if (scope.view === (crdView as unknown as AnyView)) await settleNames(tx, object as CustomResourceDefinition, context.clock.now());
      },
    },
    builtinGoStructs,
  );
  const index = new ViewIndex(CLUSTER_VIEWS, options.groups);
  // Discovery and OpenAPI are rebuilt on first use after the served CRDs change.
  let discovery: Discovery | undefined;
  let openapi: OpenApiDocuments | undefined;
  const catalog = new CustomResourceCatalog(context.store, (views) => {
    index.setDynamic(views);
    options.customResourceNames?.replace(views.map((view) => view.resource));
    discovery = undefined;
    openapi = undefined;
    apiServices?.customResourcesChanged();
    garbageCollector?.viewsChanged();
  });
  let apiServices: ApiServiceController | undefined;
  let garbageCollector: GarbageCollector | undefined;
  await catalog.start();
  await admission.start();
  const active = new ActiveWatches();
  const handlers: HandlerContext = {
    registry,
    index,
    watch: { settings: { ...DEFAULT_WATCH_SETTINGS, ...options.watch }, active },
    random: randomFrom(context),
  };
  await seedNamespaces(registry);
  await seedBuiltinObjects(registry, CLUSTER_VIEWS);
  await finalizeTerminatingNamespaces(context.store, catalog.storeKinds(true));
  for (const name of await terminatingCrds(context.store)) finalize(name);
  await options.rbac.start(registry, options.bootstrapPolicy, context.singleton);
  let accounts: ServiceAccountController | undefined;
  const accountsLeader = await context.singleton('cluster/serviceaccount-controller', async () => {
    const controller = new ServiceAccountController(context.store, registry);
    accounts = controller;
    await controller.start();
    return controller;
  });
  const apiServicesLeader = await context.singleton('cluster/apiservice-controller', async () => {
    const controller = new ApiServiceController(
      context.store,
      registry,
      API_SERVICE_VIEWS,
      SERVED_GROUP_VERSIONS,
      () => catalog.views.filter((view) => view.subresource === undefined),
      () => context.clock.now(),
    );
    apiServices = controller;
    controller.startInBackground();
    return controller;
  });
  const garbageCollectorLeader = await context.singleton('cluster/garbage-collector', async () => {
    const collector = new GarbageCollector(
      context.store,
      registry,
      () => index.views,
      options.groups,
      new EventRecorder(registry, context.clock, GARBAGE_COLLECTOR_COMPONENT),
    );
    garbageCollector = collector;
    // The relist runs behind the first request (idle() waits for it).
    void collector.start().catch(() => undefined);
    return collector;
  });
  let endpoints: EndpointsController | undefined;
  const endpointsLeader = await context.singleton('cluster/endpoints-controller', () => {
    const controller = new EndpointsController(context.store, registry, ENDPOINTS_VIEWS, context.clock);
    endpoints = controller;
    void controller.start().catch(() => undefined);
    return controller;
  });
  // --workloads simulate: fake Nodes, the scheduler, the kubelet and the workload controllers, loaded only then.
  let simulation: { idle(): Promise<void> } | undefined;
  const workloads = options.workloads;
  const simulationLeader =
    workloads === undefined
      ? undefined
      : await context.singleton('cluster/workload-simulation', async () => {
          const { startWorkloadSimulation } = await import('./simulation/start.ts');
          const started = await startWorkloadSimulation(context, registry, CLUSTER_VIEWS, workloads);
          simulation = started;
          return started;
        });
  const expiry = await context.singleton('cluster/event-expiry', () => {
    const sweeper = new EventExpiry(context.store, context.clock, options.eventTtlSeconds, undefined, context.timers);
    sweeper.start();
    return sweeper;
  });
  return {
    handlers,
    resolveTarget,
    serveResource,
    servePodStream,
    get discovery() {
      discovery ??= new Discovery(
        inDiscoveryOrder([...discoveryResourcesOf(index.views), SELF_SUBJECT_REVIEW_RESOURCE, TOKEN_REVIEW_RESOURCE, ...ACCESS_REVIEW_RESOURCES]),
        options.groups,
        options.spelling,
      );
      return discovery;
    },
    get openapi() {
      openapi ??= new OpenApiDocuments(
        index.views.filter((view) => view.subresource === undefined),
        options.groups,
        options.spelling,
        [
          { ...SELF_SUBJECT_REVIEW_RESOURCE, schemaName: SELF_SUBJECT_REVIEW_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
          { ...TOKEN_REVIEW_RESOURCE, schemaName: TOKEN_REVIEW_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
          ...ACCESS_REVIEW_RESOURCES.map((review) => ({ ...review, schemaName: ACCESS_REVIEW_SCHEMA_NAMES[review.kind]!, schemas: AUTHORIZATION_V1_SCHEMAS })),
        ],
      );
      return openapi;
    },
    customResources: () => catalog.views,
    async reseed() {
      await seedNamespaces(registry);
      // A restored state may hold CRDs whose deletion was under way.
      for (const name of await terminatingCrds(context.store)) finalize(name);
      await seedBuiltinObjects(registry, CLUSTER_VIEWS);
      if (options.bootstrapPolicy) await options.rbac.reconcile(registry);
    },
    async idle() {
      // One controller's writes are another's work (a deleted Service's slices for the collector): until a round writes nothing
      // (a bounded number of rounds, so writes from elsewhere cannot hold it).
      for (let round = 0; round < 20; round++) {
        const before = await context.store.currentRevision();
        await accounts?.idle();
        await apiServices?.idle();
        await garbageCollector?.idle();
        await endpoints?.idle();
        await simulation?.idle();
        if ((await context.store.currentRevision()) === before) return;
      }
    },
    async close() {
      stopped = true;
      catalog.stop();
      admission.stop();
      await Promise.all(finalizing);
      await accountsLeader.stop();
      await apiServicesLeader.stop();
      await garbageCollectorLeader.stop();
      await endpointsLeader.stop();
      await simulationLeader?.stop();
      await expiry.stop();
      await options.rbac.stop();
      active.closeAll();
    },
  };
}

/** seedNamespaces creates the namespaces every cluster starts with (once; they persist with the store). */
async function seedNamespaces(registry: GenericRegistry): Promise<void> {
  const scope: RequestScope = { view: namespacesView, group: '', namespace: undefined };
  for (const name of INITIAL_NAMESPACES) {
    if ((await registry.store.get(NAMESPACE_STORE_KIND, name)) !== undefined) continue;
    try {
      await registry.create(scope, { metadata: { name } }, { dryRun: false, fieldManager: 'kube-apiserver' });
    } catch (error) {
      // Another fogbank sharing the store seeded it first.
      if (!(error instanceof Error && error.name === 'StatusError' && (error as { reason?: string }).reason === 'AlreadyExists')) throw error;
    }
  }
}
