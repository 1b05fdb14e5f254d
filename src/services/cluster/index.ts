/**
 * The cluster API family (spec area C): a Kubernetes-compatible API server for ClusterRole,
 * Event (events.k8s.io/v1 and core v1) and Namespace, with discovery, OpenAPI v3, /version and
 * health endpoints. Everything resource-specific is a view + strategy under `resources/`; the
 * behaviour is the generic registry's under `apimachinery/`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loadYamlParser } from '../../core/config.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import { DEFAULT_BODY_LIMIT } from '../../core/server.ts';
import { apiGroupVocabulary, DEFAULT_API_DOMAIN, type Vocabulary } from '../../core/identifiers.ts';
import type { ServiceContext, ServiceDefinition } from '../../core/service.ts';
import { clusterErrorBodyProblem, renderClusterError, useClusterErrors, YamlBodyError } from './apimachinery/error-serializer.ts';
import { sendSerialized } from './apimachinery/send-serialized.ts';
import { notFoundPath } from './apimachinery/status.ts';
import type { WatchSettings } from './apimachinery/watch.ts';
import { clusterBanner } from './banner.ts';
import { useClusterAuth, userOf } from './cluster-auth.ts';
import { aggregatedFormOf } from './discovery.ts';
import { Rbac } from './rbac/rbac-service.ts';
import type { ClusterRuntime } from './runtime.ts';
import { SERVED_VERSION } from './version.ts';

export { kubeconfigText, KUBECONFIG_FILE_NAME } from './kubeconfig.ts';

/** CLUSTER_GROUP_PREFIXES are the named groups served, without their domain. */
export const CLUSTER_GROUP_PREFIXES: readonly string[] = ['rbac.authorization', 'events', 'authorization'];

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

/** createClusterService builds the family with its options. */
export function createClusterService(options: ClusterOptions = {}): ServiceDefinition {
  const domain = options.apiDomain ?? DEFAULT_API_DOMAIN;
  const groups: Vocabulary = apiGroupVocabulary(CLUSTER_GROUP_PREFIXES, domain);
  const spelling = domain === DEFAULT_API_DOMAIN ? 'real' : 'spec';
  return {
    name: 'cluster',
    pathPrefixes: CLUSTER_PATH_PREFIXES,
    renderError: renderClusterError,
    errorBodyProblem: clusterErrorBodyProblem,
    banner: clusterBanner,
    async register(app: FastifyInstance, context: ServiceContext) {
      const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
      useClusterErrors(app, bodyLimit);
      useClusterAuth(app, context.auth);
      const rbac = new Rbac(context.store, groups);
      // Authorizing needs the default policy reconciled, which the working parts do as they start.
      app.addHook('onRequest', (request, _reply, done) => {
        if (userOf(request) === undefined || runtime.ready() !== undefined) done();
        else runtime().then(() => done(), done);
      });
      rbac.install(app, domain);
      useYamlBodies(app);
      // The working parts load on the first request (start-up time and idle memory); every route
      // awaits them, so the first request already sees the initial namespaces and default policy.
      const runtime = loadOnFirstUse<ClusterRuntime>(async () =>
        (await import('./runtime.ts')).startClusterRuntime(context, {
          groups,
          spelling,
          eventTtlSeconds: options.eventTtlSeconds ?? DEFAULT_EVENT_TTL_SECONDS,
          watch: options.watch,
          rbac,
          bootstrapPolicy: options.bootstrapPolicy ?? true,
        }),
      );

      const json = (reply: FastifyReply, body: unknown, contentType = 'application/json') =>
        sendSerialized(reply.code(200).header('cache-control', 'no-cache, private'), contentType, typeof body === 'string' ? body : JSON.stringify(body));

      app.get('/version', async (_request, reply) =>
        json(reply, { ...SERVED_VERSION, gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean', buildDate: '2024-12-11T18:04:20Z', goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64' }),
      );
      for (const path of ['/livez', '/readyz']) app.get(path, async (_request, reply) => reply.code(200).header('content-type', 'text/plain; charset=utf-8').send('ok'));

      app.get('/openapi/v3', async (_request, reply) => json(reply, (await runtime()).openapi.index()));
      app.get('/openapi/v3/*', async (request, reply) => {
        const path = ((request.params as { '*': string })['*'] ?? '').replace(/\/$/, '');
        const document = (await runtime()).openapi.document(path);
        if (document === undefined) throw notFoundPath();
        const hash = (request.query as Record<string, string | undefined>)['hash'];
        reply.header('etag', `"${document.hash}"`);
        if (hash !== undefined && hash !== document.hash) {
          return reply.code(301).header('location', `/openapi/v3/${path}?hash=${document.hash}`).send();
        }
        reply.header('cache-control', hash === undefined ? 'no-cache, private' : 'public, immutable');
        if (hash !== undefined) reply.header('expires', new Date(context.clock.now() + 365 * 86400_000).toUTCString());
        return sendSerialized(reply.code(200), 'application/json', document.json);
      });

      const discoveryAnswer = async (request: FastifyRequest, reply: FastifyReply, core: boolean) => {
        const { discovery } = await runtime();
        const form = aggregatedFormOf(request.headers.accept);
        if (form !== undefined) {
          return json(reply, discovery.aggregated(core, form), `application/json;g=apidiscovery.k8s.io;v=${form};as=APIGroupDiscoveryList`);
        }
        return json(reply, core ? discovery.apiVersions(request.headers.host ?? '127.0.0.1') : discovery.apiGroupList());
      };
      app.get('/api', async (request, reply) => discoveryAnswer(request, reply, true));
      app.get('/apis', async (request, reply) => discoveryAnswer(request, reply, false));
      app.all('/api/*', async (request, reply) => {
        const runtimeNow = runtime.ready() ?? (await runtime());
        const { discovery, handlers } = runtimeNow;
        const [version, ...rest] = splitPath((request.params as { '*': string })['*']);
        if (version === undefined) throw notFoundPath();
        if (rest.length === 0 && request.method === 'GET') {
          const list = discovery.apiResourceList('', version);
          if (list === undefined) throw notFoundPath();
          return json(reply, list);
        }
        const target = runtimeNow.resolveTarget(handlers.index, '', version, rest, userOf(request));
        if (target === undefined) throw notFoundPath();
        return runtimeNow.serveResource(handlers, target, request, reply);
      });
      app.all('/apis/*', async (request, reply) => {
        const runtimeNow = runtime.ready() ?? (await runtime());
        const { discovery, handlers } = runtimeNow;
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
        const target = runtimeNow.resolveTarget(handlers.index, group, version, rest, userOf(request));
        if (target === undefined) throw notFoundPath();
        return runtimeNow.serveResource(handlers, target, request, reply);
      });
      return {
        close: async () => {
          await (await runtime.loaded()?.catch(() => undefined))?.close();
        },
        warmUp: async () => {
          await runtime();
        },
      };
    },
  };
}

function splitPath(path: string | undefined): string[] {
  return (path ?? '').split('/').filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
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
    loadYamlParser().then(
      (parse) => {
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
