import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Vocabulary } from '../../core/identifiers.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import { yamlBodies, type YamlBodies } from '../../core/yaml-body.ts';
import { YamlAliasingError, YamlBusyError, YamlDecodeLimitError, YamlDecoderFailure, YamlTooDeepError } from '../../core/yaml-errors.ts';
import type { ServiceContext, ServiceHandle } from '../../core/service.ts';
import { YamlBodyError } from './apimachinery/error-serializer.ts';
import { sendSerialized } from './apimachinery/send-serialized.ts';
import { notFoundPath } from './apimachinery/status.ts';
import { rethrowUndecodedBody, UndecodedBody } from './apimachinery/undecoded-body.ts';
import { AUTHENTICATION_GROUP, registerSelfSubjectReview } from './authentication/self-subject-review.ts';
import { registerOidcDiscovery } from './authentication/oidc-discovery.ts';
import { ServiceAccountTokens, type LookupObject } from './authentication/service-account-tokens.ts';
import { SigningKeySource } from './authentication/signing-key.ts';
import { registerTokenRequest } from './authentication/token-request.ts';
import { registerTokenReview } from './authentication/token-review.ts';
import type { KubeObject } from './apimachinery/object-meta.ts';
import { useClusterAuth, userOf } from './cluster-auth.ts';
import type { ServedCustomResourceNames } from './crd/served-names.ts';
import { clusterRequestOf } from './request-info.ts';
import { aggregatedFormOf } from './discovery.ts';
import { negotiateSwagger, notModified, PROTOBUF_MEDIA_TYPE, swaggerAnswerOf } from './openapi-v2/swagger-answer.ts';
import { optionValue } from '../../core/family-options.ts';
import { type ClusterOptions, DEFAULT_EVENT_TTL_SECONDS, EVENT_TTL_OPTION } from './options.ts';
import { simulationSettings } from './simulation/settings-from-options.ts';
import { Rbac } from './rbac/rbac-service.ts';
import type { ClusterRuntime } from './runtime.ts';
import { SERVED_VERSION } from './version.ts';
import { isPodStreamPath } from './resources/pod-stream-paths.ts';

/** ClusterFamily is what createClusterService settled: the options and the group names in both spellings. */
export interface ClusterFamily {
  readonly options: ClusterOptions;
  readonly groups: Vocabulary;
  readonly domain: string;
  readonly spelling: 'real' | 'spec';
  /** The served custom resources' plurals, kept by the runtime for fault rules. */
  readonly customResources?: ServedCustomResourceNames;
}

/**
 * registerCluster builds the cluster family's app (its ServiceDefinition.register, loaded with
 * the family's first request): authentication and authorization hooks, /version, health, OpenAPI,
 * discovery, and the generic registry's routes under /api and /apis. The working parts (registry,
 * views, default policy, controllers) load on the first request that needs them.
 */
export async function registerCluster(app: FastifyInstance, context: ServiceContext, family: ClusterFamily): Promise<ServiceHandle> {
  const { options, groups, domain, spelling } = family;
  // ServiceAccount tokens: the signing key (loaded on first need), and lookups of the objects a token names.
  const keys = new SigningKeySource(context.store, context.dataDir);
  const lookup: LookupObject = async (resource, namespace, name) => {
    const view = (runtime.ready() ?? (await runtime())).handlers.index.find('', 'v1', resource);
    if (view === undefined) return undefined;
    return (await context.store.get<KubeObject>(view.storeKind, view.strategy.namespaced ? `${namespace}/${name}` : name))?.value;
  };
  const tokens = new ServiceAccountTokens(keys, context.ids, lookup);
  useClusterAuth(app, context.auth, async (token) => {
    const outcome = await tokens.authenticate(token, context.clock.now());
    return outcome.kind === 'user' ? outcome.user : undefined;
  });
  const rbac = new Rbac(context.store, groups);
  // Authorizing needs the default policy reconciled, which the working parts do as they start.
  app.addHook('onRequest', (request, _reply, done) => {
    if (userOf(request) === undefined || runtime.ready() !== undefined) done();
    else runtime().then(() => done(), done);
  });
  rbac.install(app, domain);
  registerSelfSubjectReview(app, context.clock, [AUTHENTICATION_GROUP, `authentication.${domain}`]);
  registerTokenReview(app, { auth: context.auth, tokens, clock: context.clock, groups }, [AUTHENTICATION_GROUP, `authentication.${domain}`]);
  registerTokenRequest(app, { tokens, clock: context.clock, lookup, groups });
  registerOidcDiscovery(app, keys);
  const yaml = yamlBodies(options.yamlBodies);
  useYamlBodies(app, yaml);
  // The working parts load on the first request (start-up time and idle memory); every route
  // awaits them, so the first request already sees the initial namespaces and default policy.
  const runtime = loadOnFirstUse<ClusterRuntime>(async () =>
    (await import('./runtime.ts')).startClusterRuntime(context, {
      groups,
      spelling,
      eventTtlSeconds: options.eventTtlSeconds ?? optionValue(EVENT_TTL_OPTION, context.options) ?? DEFAULT_EVENT_TTL_SECONDS,
      watch: options.watch,
      rbac,
      bootstrapPolicy: options.bootstrapPolicy ?? true,
      ...simulationSettings(options, context.options),
      ...(family.customResources === undefined ? {} : { customResourceNames: family.customResources }),
    }),
  );

  // A clock advance waits, after each step it fires, for the controllers to finish the work the
  // step started (a CronJob's Job, its Pod, the binding), so a chain of steps runs within it.
  const stopClockStep = context.control?.onClockStep(async () => runtime.ready()?.idle());

  const json = (reply: FastifyReply, body: unknown, contentType = 'application/json') =>
    sendSerialized(reply.code(200).header('cache-control', 'no-cache, private'), contentType, typeof body === 'string' ? body : JSON.stringify(body));

  // The apiserver writes /version with responsewriters.WriteRawJSON: always indented, whatever was asked.
  app.get('/version', async (_request, reply) =>
    sendSerialized(
      reply.code(200).header('cache-control', 'no-cache, private'),
      'application/json',
      JSON.stringify(
        {
          ...SERVED_VERSION,
          gitCommit: '0000000000000000000000000000000000000000',
          gitTreeState: 'clean',
          buildDate: '2024-12-11T18:04:20Z',
          goVersion: 'go1.23.3',
          compiler: 'gc',
          platform: 'linux/amd64',
        },
        null,
        2,
      ),
      { negotiated: false },
    ),
  );
  for (const path of ['/livez', '/readyz'])
    app.get(path, async (_request, reply) => reply.code(200).header('content-type', 'text/plain; charset=utf-8').send('ok'));

  // kube-openapi writes the index as json.Marshal gives it: never indented, no trailing newline.
  app.get('/openapi/v3', async (_request, reply) =>
    sendSerialized(reply.code(200).header('cache-control', 'no-cache, private'), 'application/json', JSON.stringify((await runtime()).openapi.index()), {
      negotiated: false,
    }),
  );
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
    return sendSerialized(reply.code(200), 'application/json', document.json, { negotiated: false });
  });

  // The Swagger 2.0 document, derived from the v3 ones (openapi-v2/): what kubectl validates a `kind: List` with.
  app.get('/openapi/v2', async (request, reply) => {
    const { openapi } = await runtime();
    // The apiserver's WithCacheControl filter marks every answer `no-cache, private`: clients revalidate with the Etag.
    reply.header('vary', 'Accept').header('cache-control', 'no-cache, private');
    const form = negotiateSwagger(request.headers.accept);
    if (form === undefined) return reply.code(406).send();
    const documents = () => openapi.paths().map((path) => JSON.parse(openapi.document(path)?.json ?? '{}') as unknown);
    const answer = swaggerAnswerOf(openapi, documents, SERVED_VERSION.gitVersion, context.clock.now());
    reply.header('content-type', form === 'json' ? 'application/json' : PROTOBUF_MEDIA_TYPE);
    reply.header('etag', `"${answer.etag}"`).header('last-modified', answer.lastModified);
    const ifNoneMatch = request.headers['if-none-match'];
    const ifModifiedSince = request.headers['if-modified-since'];
    if (notModified(answer, ifNoneMatch, ifModifiedSince)) return reply.code(304).removeHeader('content-type').send();
    const body = answer.body(form);
    return typeof body === 'string' ? sendSerialized(reply.code(200), 'application/json', body, { negotiated: false }) : reply.code(200).send(body);
  });

  // Aggregated discovery carries an ETag, so kubectl's disk cache revalidates with If-None-Match (304) instead of refetching.
  // Kept per Discovery: the runtime makes a new one when the served CRDs change.
  const aggregatedTexts = new WeakMap<object, Map<string, { readonly text: string; readonly etag: string }>>();
  const discoveryAnswer = async (request: FastifyRequest, reply: FastifyReply, core: boolean) => {
    const { discovery } = await runtime();
    const form = aggregatedFormOf(request.headers.accept);
    if (form !== undefined) {
      const key = `${core}/${form}`;
      let texts = aggregatedTexts.get(discovery);
      if (texts === undefined) {
        texts = new Map();
        aggregatedTexts.set(discovery, texts);
      }
      let cached = texts.get(key);
      if (cached === undefined) {
        const text = JSON.stringify(discovery.aggregated(core, form));
        cached = { text, etag: `"${createHash('sha512').update(text).digest('hex').toUpperCase()}"` };
        texts.set(key, cached);
      }
      reply.header('etag', cached.etag);
      if (request.headers['if-none-match'] === cached.etag) return reply.code(304).header('cache-control', 'no-cache, private').send();
      return json(reply, cached.text, `application/json;g=apidiscovery.k8s.io;v=${form};as=APIGroupDiscoveryList`);
    }
    return json(reply, core ? discovery.apiVersions(request.headers.host ?? '127.0.0.1') : discovery.apiGroupList());
  };
  app.get('/api', async (request, reply) => discoveryAnswer(request, reply, true));
  app.get('/apis', async (request, reply) => discoveryAnswer(request, reply, false));
  app.all('/api/*', async (request, reply) => {
    const runtimeNow = runtime.ready() ?? (await runtime());
    const { discovery, handlers } = runtimeNow;
    // What the path names was read once, with the request (request-info.ts).
    const info = clusterRequestOf(request);
    const { version } = info;
    if (version === undefined) throw notFoundPath();
    if (info.target.length === 0 && request.method === 'GET') {
      const list = discovery.apiResourceList('', version);
      if (list === undefined) throw notFoundPath();
      return json(reply, list);
    }
    // A Pod's log, exec, attach and portforward reach a container: answered as when none runs (resources/pod-streams.ts).
    if (version === 'v1' && !info.watchPath && isPodStreamPath(info.target)) return runtimeNow.servePodStream(handlers, info.target, request, reply);
    const target = runtimeNow.resolveTarget(handlers.index, '', version, info.target, info.user);
    if (target === undefined) throw notFoundPath();
    rethrowUndecodedBody(request.body);
    return runtimeNow.serveResource(handlers, target, request, reply, info.watchPath);
  });
  app.all('/apis/*', async (request, reply) => {
    const runtimeNow = runtime.ready() ?? (await runtime());
    const { discovery, handlers } = runtimeNow;
    const info = clusterRequestOf(request);
    const { group, version } = info;
    if (group === '') throw notFoundPath();
    if (version === undefined && request.method === 'GET') {
      const answer = discovery.apiGroup(group);
      if (answer === undefined) throw notFoundPath();
      return json(reply, answer);
    }
    if (version === undefined) throw notFoundPath();
    if (info.target.length === 0 && request.method === 'GET') {
      const list = discovery.apiResourceList(group, version);
      if (list === undefined) throw notFoundPath();
      return json(reply, list);
    }
    const target = runtimeNow.resolveTarget(handlers.index, group, version, info.target, info.user);
    if (target === undefined) throw notFoundPath();
    rethrowUndecodedBody(request.body);
    return runtimeNow.serveResource(handlers, target, request, reply, info.watchPath);
  });
  return {
    close: async () => {
      stopClockStep?.();
      keys.close();
      await yaml.close();
      await (await runtime.loaded()?.catch(() => undefined))?.close();
    },
    warmUp: async () => {
      const started = await runtime();
      // A settled store: the aggregated default roles and every namespace's default ServiceAccount written before the first test request.
      await rbac.aggregationIdle();
      await started.idle();
    },
    stateReplaced: async () => {
      // Not started yet: its start will seed.
      await (await runtime.loaded()?.catch(() => undefined))?.reseed();
      await keys.stateReplaced();
    },
  };
}

/**
 * useYamlBodies accepts YAML and Kubernetes protobuf request bodies (their decoders load on first
 * use). A protobuf body that does not decode (a kind not served here) is kept as an UndecodedBody
 * for the route's handler, so an unknown route is still a 404. Large YAML bodies decode on worker
 * threads (core/yaml-body.ts), so the parser answers asynchronously.
 */
function useYamlBodies(app: FastifyInstance, yaml: YamlBodies): void {
  // The apiserver reads a create or update body sent without Content-Type as JSON, the first type it
  // supports (NegotiateInputSerializer); client-go's scale client PUTs its Scale so.
  app.addHook('onRequest', (request, _reply, done) => {
    const { headers } = request;
    const hasBody = (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;
    if ((request.method === 'PUT' || request.method === 'POST') && headers['content-type'] === undefined && hasBody)
      headers['content-type'] = 'application/json';
    done();
  });
  app.addContentTypeParser(/^application\/vnd\.kubernetes\.protobuf(;.*)?$/i, { parseAs: 'buffer' }, (_request, body, done) => {
    Promise.all([import('./apimachinery/protobuf-body.ts'), import('./builtin/protobuf.ts')]).then(
      ([{ decodeProtobufBody }, { decodeBuiltinProtobuf }]) => {
        try {
          done(null, body.length === 0 ? undefined : decodeProtobufBody(body as Buffer, decodeBuiltinProtobuf));
        } catch (error) {
          done(null, new UndecodedBody(error as Error));
        }
      },
      (error: unknown) => done(error as Error, undefined),
    );
  });
  app.addContentTypeParser(/^application\/(yaml|apply-patch\+yaml)(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    yaml.parse(text).then(
      (value) => done(null, value),
      // Core's typed refusals keep their type (the family words them: error-serializer.ts); the
      // library's own errors are the body's syntax.
      (error: unknown) => done(keepsItsType(error) ? error : new YamlBodyError((error as Error).message), undefined),
    );
  });
}

/** keepsItsType tells core's typed YAML errors from the library's syntax errors. */
function keepsItsType(error: unknown): error is Error {
  return (
    error instanceof YamlTooDeepError ||
    error instanceof YamlAliasingError ||
    error instanceof YamlDecodeLimitError ||
    error instanceof YamlBusyError ||
    error instanceof YamlDecoderFailure
  );
}
