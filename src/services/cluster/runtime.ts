/**
 * The cluster family's working parts, loaded on the first request to the family's paths rather
 * at start-up (start-up time: this module and its imports are most of the family's code): the
 * generic registry over the store, the served views, discovery, OpenAPI documents, event expiry,
 * and the namespaces every cluster starts with.
 */
import type { Spelling, Vocabulary } from '../../core/identifiers.ts';
import type { ServiceContext } from '../../core/service.ts';
import type { Transaction } from '../../store/index.ts';
import type { KubeObject } from './apimachinery/object-meta.ts';
import { GenericRegistry, type RegistryHooks, type RequestScope } from './apimachinery/registry.ts';
import { resolveTarget, serveResource, ViewIndex, type HandlerContext } from './apimachinery/resource-handlers.ts';
import type { AnyView } from './apimachinery/strategy.ts';
import { ActiveWatches, DEFAULT_WATCH_SETTINGS, type WatchSettings } from './apimachinery/watch.ts';
import { Discovery, discoveryResourceOf } from './discovery.ts';
import { EventExpiry } from './event-expiry.ts';
import { OpenApiDocuments } from './openapi.ts';
import { ACCESS_REVIEW_SCHEMA_NAMES, AUTHORIZATION_V1_SCHEMAS } from './rbac/access-review-schemas.ts';
import { ACCESS_REVIEW_RESOURCES } from './rbac/access-reviews.ts';
import { SELF_SUBJECT_REVIEW_RESOURCE } from './authentication/self-subject-review.ts';
import { SELF_SUBJECT_REVIEW_SCHEMA_NAME } from './authentication/self-subject-review-schemas.ts';
import { TOKEN_REVIEW_RESOURCE } from './authentication/token-review.ts';
import { TOKEN_REVIEW_SCHEMA_NAME, TOKEN_SCHEMAS } from './authentication/token-schemas.ts';
import type { Rbac } from './rbac/rbac-service.ts';
import { clusterRoleBindingsView } from './resources/cluster-role-bindings.ts';
import { clusterRolesView } from './resources/cluster-roles.ts';
import { coreEventsView, eventsV1View } from './resources/events.ts';
import { INITIAL_NAMESPACES, NAMESPACE_STORE_KIND, namespacesView, PROTECTED_NAMESPACES } from './resources/namespaces.ts';
import { roleBindingsView } from './resources/role-bindings.ts';
import { rolesView } from './resources/roles.ts';
import { ServiceAccountController } from './resources/service-account-controller.ts';
import { serviceAccountsView } from './resources/service-accounts.ts';

/** CLUSTER_VIEWS are every resource view served, in discovery order. */
export const CLUSTER_VIEWS: readonly AnyView[] = [
  namespacesView,
  coreEventsView,
  serviceAccountsView,
  clusterRolesView,
  clusterRoleBindingsView,
  roleBindingsView,
  rolesView,
  eventsV1View,
];

/** NAMESPACED_STORE_KINDS are the store kinds of every namespaced view, emptied with their namespace. */
const NAMESPACED_STORE_KINDS: readonly string[] = [...new Set(CLUSTER_VIEWS.filter((view) => view.strategy.namespaced).map((view) => view.storeKind))];

/** registryHooks are the cross-resource rules: namespaces must exist, some may not go, and take what lives in them with them. */
function registryHooks(): RegistryHooks {
  return {
    namespaceExists: async (tx: Transaction, namespace: string) => (await tx.get(NAMESPACE_STORE_KIND, namespace)) !== undefined,
    beforeDelete: (view: AnyView, object: KubeObject) =>
      view.storeKind === NAMESPACE_STORE_KIND && PROTECTED_NAMESPACES.has(object.metadata.name ?? '') ? 'this namespace may not be deleted' : undefined,
    afterDelete: async (tx: Transaction, view: AnyView, object: KubeObject) => {
      if (view.storeKind !== NAMESPACE_STORE_KIND) return;
      const prefix = `${object.metadata.name ?? ''}/`;
      for (const kind of NAMESPACED_STORE_KINDS) for (const record of await tx.list(kind, { prefix })) await tx.delete(kind, record.key);
    },
  };
}

/** ClusterRuntime is the loaded family. */
export interface ClusterRuntime {
  readonly handlers: HandlerContext;
  readonly resolveTarget: typeof resolveTarget;
  readonly serveResource: typeof serveResource;
  readonly discovery: Discovery;
  readonly openapi: OpenApiDocuments;
  /** reseed creates again, after the store's state was replaced, the namespaces and default policy a cluster starts with. */
  reseed(): Promise<void>;
  /** idle resolves once the ServiceAccount controller (when it runs here) has made every namespace's default account. */
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
}

function randomFrom(context: ServiceContext): () => number {
  return () => context.ids.bytes(4).readUInt32BE(0) / 2 ** 32;
}

/** startClusterRuntime builds the family's parts, seeds the initial namespaces and starts RBAC (default policy, aggregation). */
export async function startClusterRuntime(context: ServiceContext, options: RuntimeOptions): Promise<ClusterRuntime> {
  const registry = new GenericRegistry(context.store, context.clock, context.ids, { ...registryHooks(), beforeWrite: options.rbac.beforeWrite });
  const index = new ViewIndex(CLUSTER_VIEWS, options.groups);
  const active = new ActiveWatches();
  const handlers: HandlerContext = {
    registry,
    index,
    watch: { settings: { ...DEFAULT_WATCH_SETTINGS, ...options.watch }, active },
    random: randomFrom(context),
  };
  await seedNamespaces(registry);
  await options.rbac.start(registry, options.bootstrapPolicy, context.singleton);
  let accounts: ServiceAccountController | undefined;
  const accountsLeader = await context.singleton('cluster/serviceaccount-controller', async () => {
    const controller = new ServiceAccountController(context.store, registry);
    accounts = controller;
    await controller.start();
    return controller;
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
    discovery: new Discovery(
      [...CLUSTER_VIEWS.map(discoveryResourceOf), SELF_SUBJECT_REVIEW_RESOURCE, TOKEN_REVIEW_RESOURCE, ...ACCESS_REVIEW_RESOURCES],
      options.groups,
      options.spelling,
    ),
    openapi: new OpenApiDocuments(CLUSTER_VIEWS, options.groups, options.spelling, [
      { ...SELF_SUBJECT_REVIEW_RESOURCE, schemaName: SELF_SUBJECT_REVIEW_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
      { ...TOKEN_REVIEW_RESOURCE, schemaName: TOKEN_REVIEW_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
      ...ACCESS_REVIEW_RESOURCES.map((review) => ({ ...review, schemaName: ACCESS_REVIEW_SCHEMA_NAMES[review.kind]!, schemas: AUTHORIZATION_V1_SCHEMAS })),
    ]),
    async reseed() {
      await seedNamespaces(registry);
      if (options.bootstrapPolicy) await options.rbac.reconcile(registry);
    },
    async idle() {
      await accounts?.idle();
    },
    async close() {
      await accountsLeader.stop();
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
