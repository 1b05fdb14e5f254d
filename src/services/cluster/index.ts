/**
 * The cluster API family (spec area C): a Kubernetes-compatible API server for ClusterRole,
 * Event (events.k8s.io/v1 and core v1) and Namespace, with discovery, OpenAPI v3, /version and
 * health endpoints. Everything resource-specific is a view + strategy under `resources/`; the
 * behaviour is the generic registry's under `apimachinery/`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import { apiGroupVocabulary, DEFAULT_API_DOMAIN, type Vocabulary } from '../../core/identifiers.ts';
import type { ServiceContext, ServiceDefinition } from '../../core/service.ts';
import type { Transaction } from '../../store/index.ts';
import { renderClusterError, useClusterErrors, YamlBodyError } from './apimachinery/error-serializer.ts';
import type { KubeObject } from './apimachinery/object-meta.ts';
import { GenericRegistry, type RegistryHooks } from './apimachinery/registry.ts';
import { resolveTarget, serveResource, ViewIndex, type HandlerContext } from './apimachinery/resource-handlers.ts';
import { notFoundPath } from './apimachinery/status.ts';
import type { AnyView } from './apimachinery/strategy.ts';
import { ActiveWatches, DEFAULT_WATCH_SETTINGS, type WatchSettings } from './apimachinery/watch.ts';
import { useClusterAuth, userOf } from './cluster-auth.ts';
import { aggregatedFormOf, Discovery } from './discovery.ts';
import { EventExpiry } from './event-expiry.ts';
import { OpenApiDocuments, SERVED_VERSION } from './openapi.ts';
import { clusterRoleBindingsView } from './resources/cluster-role-bindings.ts';
import { clusterRolesView } from './resources/cluster-roles.ts';
import { Rbac, runAs } from './rbac/rbac-service.ts';
import { coreEventsView, EVENT_STORE_KIND, eventsV1View } from './resources/events.ts';
import { INITIAL_NAMESPACES, NAMESPACE_STORE_KIND, namespacesView, PROTECTED_NAMESPACES } from './resources/namespaces.ts';

export { clusterBannerLines, kubeconfigText, KUBECONFIG_FILE_NAME } from './kubeconfig.ts';

/** CLUSTER_GROUP_PREFIXES are the named groups served, without their domain. */
export const CLUSTER_GROUP_PREFIXES: readonly string[] = ['rbac.authorization', 'events'];

/** CLUSTER_PATH_PREFIXES are the URL prefixes the family answers under. */
export const CLUSTER_PATH_PREFIXES: readonly string[] = ['/api', '/apis', '/version', '/openapi', '/livez', '/readyz'];

/** DEFAULT_EVENT_TTL_SECONDS is how long an event lives after its last write (the real `--event-ttl` default: 1h). */
export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/** ClusterOptions configure the family. */
export interface ClusterOptions {
  /** The `{api_domain}` of group names (default `k8s.io`); both spellings are accepted. */
  readonly apiDomain?: string;
  readonly eventTtlSeconds?: number;
  readonly watch?: Partial<WatchSettings>;
  /** Whether the default RBAC policy is reconciled at start (default true, as on a real cluster). */
  readonly bootstrapPolicy?: boolean;
}

/** CLUSTER_VIEWS are every resource view served, in discovery order. */
export const CLUSTER_VIEWS: readonly AnyView[] = [namespacesView, coreEventsView, clusterRolesView, clusterRoleBindingsView, eventsV1View] as unknown as readonly AnyView[];

/** registryHooks are the cross-resource rules: namespaces must exist, some may not go, and take their events with them. */
function registryHooks(): RegistryHooks {
  return {
    namespaceExists: async (tx: Transaction, namespace: string) => (await tx.get(NAMESPACE_STORE_KIND, namespace)) !== undefined,
    beforeDelete: (view: AnyView, object: KubeObject) =>
      view.storeKind === NAMESPACE_STORE_KIND && PROTECTED_NAMESPACES.has(object.metadata.name ?? '') ? 'this namespace may not be deleted' : undefined,
    afterDelete: async (tx: Transaction, view: AnyView, object: KubeObject) => {
      if (view.storeKind !== NAMESPACE_STORE_KIND) return;
      for (const record of await tx.list(EVENT_STORE_KIND, { prefix: `${object.metadata.name ?? ''}/` })) await tx.delete(EVENT_STORE_KIND, record.key);
    },
  };
}

function randomFrom(context: ServiceContext): () => number {
  return () => context.ids.bytes(4).readUInt32BE(0) / 2 ** 32;
}

/** createClusterService builds the family with its options. */
export function createClusterService(options: ClusterOptions = {}): ServiceDefinition {
  const domain = options.apiDomain ?? DEFAULT_API_DOMAIN;
  const groups: Vocabulary = apiGroupVocabulary(CLUSTER_GROUP_PREFIXES, domain);
  const spelling = domain === DEFAULT_API_DOMAIN ? 'real' : 'spec';
  return {
    name: 'cluster',
    pathPrefixes: CLUSTER_PATH_PREFIXES,
    renderError: renderClusterError,
    async register(app: FastifyInstance, context: ServiceContext) {
      const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
      const rbac = new Rbac(context.store, groups);
      const registry = new GenericRegistry(context.store, context.clock, context.ids, { ...registryHooks(), beforeWrite: rbac.beforeWrite });
      const index = new ViewIndex(CLUSTER_VIEWS, groups);
      const discovery = new Discovery(CLUSTER_VIEWS, groups, spelling);
      const openapi = new OpenApiDocuments(CLUSTER_VIEWS, groups, spelling);
      const active = new ActiveWatches();
      const handlers: HandlerContext = { registry, index, watch: { settings: { ...DEFAULT_WATCH_SETTINGS, ...options.watch }, active }, random: randomFrom(context) };
      useClusterErrors(app, bodyLimit);
      useClusterAuth(app, context.auth);
      rbac.install(app, domain);
      useYamlBodies(app);
      await seedNamespaces(registry);
      await rbac.start(registry, options.bootstrapPolicy ?? true);
      const expiry = new EventExpiry(context.store, context.clock, options.eventTtlSeconds ?? DEFAULT_EVENT_TTL_SECONDS);
      expiry.start();

      const json = (reply: FastifyReply, body: unknown, contentType = 'application/json') =>
        reply.code(200).header('content-type', contentType).header('cache-control', 'no-cache, private').send(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));

      app.get('/version', async (_request, reply) =>
        json(reply, { ...SERVED_VERSION, gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean', buildDate: '2024-12-11T18:04:20Z', goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64' }),
      );
      for (const path of ['/livez', '/readyz']) app.get(path, async (_request, reply) => reply.code(200).header('content-type', 'text/plain; charset=utf-8').send('ok'));

      app.get('/openapi/v3', async (_request, reply) => json(reply, openapi.index()));
      app.get('/openapi/v3/*', async (request, reply) => {
        const path = ((request.params as { '*': string })['*'] ?? '').replace(/\/$/, '');
        const document = openapi.document(path);
        if (document === undefined) throw notFoundPath();
        const hash = (request.query as Record<string, string | undefined>)['hash'];
        reply.header('etag', `"${document.hash}"`);
        if (hash !== undefined && hash !== document.hash) {
          return reply.code(301).header('location', `/openapi/v3/${path}?hash=${document.hash}`).send();
        }
        reply.header('cache-control', hash === undefined ? 'no-cache, private' : 'public, immutable');
        if (hash !== undefined) reply.header('expires', new Date(context.clock.now() + 365 * 86400_000).toUTCString());
        return reply.code(200).header('content-type', 'application/json').send(Buffer.from(document.json));
      });

      const discoveryAnswer = (request: FastifyRequest, reply: FastifyReply, core: boolean) => {
        const form = aggregatedFormOf(request.headers.accept);
        if (form !== undefined) {
          return json(reply, discovery.aggregated(core, form), `application/json;g=apidiscovery.k8s.io;v=${form};as=APIGroupDiscoveryList`);
        }
        return json(reply, core ? discovery.apiVersions(request.headers.host ?? '127.0.0.1') : discovery.apiGroupList());
      };
      app.get('/api', async (request, reply) => discoveryAnswer(request, reply, true));
      app.get('/apis', async (request, reply) => discoveryAnswer(request, reply, false));
      app.all('/api/*', async (request, reply) => {
        const [version, ...rest] = splitPath((request.params as { '*': string })['*']);
        if (version === undefined) throw notFoundPath();
        if (rest.length === 0 && request.method === 'GET') {
          const list = discovery.apiResourceList('', version);
          if (list === undefined) throw notFoundPath();
          return json(reply, list);
        }
        const target = resolveTarget(index, '', version, rest);
        if (target === undefined) throw notFoundPath();
        return runAs(userOf(request), () => serveResource(handlers, target, request, reply));
      });
      app.all('/apis/*', async (request, reply) => {
        const [group, version, ...rest] = splitPath((request.params as { '*': string })['*']);
        if (group === undefined) throw notFoundPath();
        if (version === undefined && request.method === 'GET') {
          const answer = discovery.apiGroup(group);
          if (answer === undefined) throw notFoundPath();
          return json(reply, answer);
        }
        if (version === undefined) throw notFoundPath();
        if (rest.length === 0 && request.method === 'GET') {
          const list = discovery.apiResourceList(group, version);
          if (list === undefined) throw notFoundPath();
          return json(reply, list);
        }
        const target = resolveTarget(index, group, version, rest);
        if (target === undefined) throw notFoundPath();
        return runAs(userOf(request), () => serveResource(handlers, target, request, reply));
      });
      return {
        close: async () => {
          expiry.stop();
          await rbac.stop();
          active.closeAll();
        },
      };
    },
  };
}

function splitPath(path: string | undefined): string[] {
  return (path ?? '').split('/').filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
}

/** seedNamespaces creates the namespaces every cluster starts with (once; they persist with the store). */
async function seedNamespaces(registry: GenericRegistry): Promise<void> {
  const scope = { view: namespacesView as unknown as AnyView, group: '', namespace: undefined };
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

/** useYamlBodies accepts YAML and Kubernetes protobuf request bodies (their decoders load on first use). */
function useYamlBodies(app: FastifyInstance): void {
  app.addContentTypeParser(/^application\/vnd\.kubernetes\.protobuf(;.*)?$/i, { parseAs: 'buffer' }, (_request, body, done) => {
    import('./apimachinery/protobuf-body.ts').then(
      ({ decodeProtobufBody }) => {
        try {
          done(null, body.length === 0 ? undefined : decodeProtobufBody(body as Buffer));
        } catch (error) {
          done(error as Error, undefined);
        }
      },
      (error: unknown) => done(error as Error, undefined),
    );
  });
  app.addContentTypeParser(/^application\/(yaml|apply-patch\+yaml)(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    import('yaml').then(
      ({ parse }) => {
        try {
          done(null, text.trim() === '' ? undefined : (parse(text) as unknown));
        } catch (error) {
          done(new YamlBodyError((error as Error).message), undefined);
        }
      },
      (error: unknown) => done(error as Error, undefined),
    );
  });
}

/** clusterService is the family with default options. */
export const clusterService: ServiceDefinition = createClusterService();
