import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sendRaw } from '../testing/raw-http.ts';
import { MemoryStore } from '../store/memory-store.ts';
import { Authenticator } from './auth.ts';
import { ManualClock, realTimers } from '../lib/clock.ts';
import { TransportProblemError, transportProblemOf } from './errors.ts';
import { seededIds } from '../lib/ids.ts';
import { registeredRoutes } from './route-registry.ts';
import { buildServer, type FogbankServer } from './server.ts';
import type { ErrorResponse, ServiceDefinition } from './service.ts';

/**
 * Core answers everything that happens before or outside a family's handlers in the dialect of
 * the family owning the path. Two stand-in families with recognisable dialects show the choice:
 * `alpha` (the fallback) and `beta`, whose prefix lies inside alpha's so the longest one must win.
 */

const deletes: string[] = [];

function family(
  name: string,
  prefix: string,
  fallback: boolean,
  routes: (app: FastifyInstance) => void,
  aliases: ServiceDefinition['pathAliases'] = [],
): ServiceDefinition {
  return {
    name,
    pathPrefixes: [prefix],
    pathAliases: aliases,
    fallback,
    renderError(error: unknown, site): ErrorResponse {
      const problem = transportProblemOf(error) ?? { httpStatus: 500, kind: 'bad-request', detail: 'boom' };
      return {
        status: problem.httpStatus,
        headers: { 'content-type': 'application/json' },
        body: { [name]: { kind: problem.kind, detail: problem.detail, path: site.path } },
      };
    },
    async register(app) {
      routes(app);
    },
  };
}

const alpha = family('alpha', '/alpha/v1', true, (app) => {
  app.get('/alpha/v1/items/:name', async (request) => ({ name: (request.params as { name: string }).name }));
  app.delete('/alpha/v1/items/:name', async (request) => {
    deletes.push((request.params as { name: string }).name);
    return {};
  });
});
// beta is also answered under `/b/v1`, an alias core routes as `/alpha/v1/beta`.
const beta = family(
  'beta',
  '/alpha/v1/beta/',
  false,
  (app) => {
    app.get('/alpha/v1/beta/things', async (request) => ({ things: [], sent: request.originalUrl }));
  },
  [{ alias: '/b/v1', canonical: '/alpha/v1/beta' }],
);
// beta refuses unknown paths to callers that say so, as compute refuses them without credentials.
beta.screenUnknownPath = (request) => {
  if (request.headers['x-refuse'] !== undefined) throw new TransportProblemError({ httpStatus: 400, kind: 'bad-request', detail: `refused ${request.url}` });
};

let app: FogbankServer;
let port: number;

before(async () => {
  const context = {
    store: new MemoryStore(),
    clock: new ManualClock(),
    timers: realTimers,
    ids: seededIds('server'),
    auth: new Authenticator('admin', []),
    operations: 'instant' as const,
  };
  app = await buildServer(context, [alpha, beta], { logLevel: 'silent', bodyLimit: 1024 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
after(async () => {
  await app.close();
});

const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe('the owning family phrases what core answers', () => {
  const MALFORMED = 'Your client has issued a malformed or illegal request.';
  const long = `/alpha/v1/beta/${'a'.repeat(20_000)}`;
  // title, request bytes, status, family, kind, detail, the path the family was told
  const cases: [string, string, number, string, string, string, string][] = [
    ['an unknown path under the longer prefix', get('/alpha/v1/beta/nothing'), 404, 'beta', 'not-found', '/alpha/v1/beta/nothing', '/alpha/v1/beta/nothing'],
    ['an unknown path under an alias, told as the client sent it', get('/b/v1/nothing?x=1'), 404, 'beta', 'not-found', '/b/v1/nothing', '/b/v1/nothing'],
    ['an unknown path under no prefix goes to the fallback', get('/elsewhere?x=1'), 404, 'alpha', 'not-found', '/elsewhere', '/elsewhere'],
    // Fastify's own text would echo the URL back.
    ['a malformed percent-escape', get('/alpha/v1/items/%zz'), 400, 'alpha', 'bad-url', MALFORMED, '/alpha/v1/items/%zz'],
    ['a method Node cannot parse', 'FOO /alpha/v1/beta/things HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'beta', 'bad-request', MALFORMED, '/alpha/v1/beta/things'],
    ['bytes that are no request at all', '\u0000\u0001hello\r\n\r\n', 400, 'alpha', 'bad-request', MALFORMED, '/'],
    [
      'oversized headers',
      get('/alpha/v1/beta/things', `X-Big: ${'a'.repeat(20_000)}\r\n`),
      431,
      'beta',
      'headers-too-large',
      'Your client issued a request that was too large.',
      '/alpha/v1/beta/things',
    ],
    ['an oversized URL', get(long), 414, 'beta', 'uri-too-long', 'The requested URL is too large to process.', long],
    // Node itself would answer these with an empty 400 or 417, or drop the connection.
    [
      'HTTP/1.1 without Host',
      'GET /alpha/v1/beta/things HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      'beta',
      'bad-request',
      MALFORMED,
      '/alpha/v1/beta/things',
    ],
    [
      'an Expect the server cannot meet',
      get('/alpha/v1/items/x', 'Expect: fancy\r\nConnection: close\r\n'),
      417,
      'alpha',
      'bad-request',
      "Expectation 'fancy' is not supported.",
      '/alpha/v1/items/x',
    ],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n', 400, 'alpha', 'bad-request', MALFORMED, 'example.com:443'],
  ];
  for (const [title, bytes, status, name, kind, detail, path] of cases) {
    it(title, async () => {
      const reply = await sendRaw(port, bytes);
      assert.equal(reply.status, status);
      const body = JSON.parse(reply.body) as Record<string, { kind: string; detail: string; path: string }>;
      assert.deepEqual(Object.keys(body), [name]);
      assert.deepEqual({ kind: body[name]!.kind, detail: body[name]!.detail }, { kind, detail });
      // An oversized URL is known only as far as Node read it; its start is what picks the family.
      if (path === long) assert.ok(body[name]!.path.length > 1000 && path.startsWith(body[name]!.path));
      else assert.equal(body[name]!.path, path);
    });
  }

  it('serves an alias with the canonical route, and the handler sees what the client sent', async () => {
    const reply = await sendRaw(port, get('/b/v1/things?y=2', 'Connection: close\r\n'));
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { things: [], sent: '/b/v1/things?y=2' });
  });

  it("runs the owning family's screen before answering an unknown path, with the routed path", async () => {
    const reply = await sendRaw(port, get('/b/v1/nothing', 'X-Refuse: 1\r\nConnection: close\r\n'));
    assert.equal(reply.status, 400);
    assert.deepEqual(JSON.parse(reply.body), { beta: { kind: 'bad-request', detail: 'refused /alpha/v1/beta/nothing', path: '/b/v1/nothing' } });
    // A known path is the route's to judge, not the screen's.
    assert.equal((await sendRaw(port, get('/b/v1/things', 'X-Refuse: 1\r\nConnection: close\r\n'))).status, 200);
  });

  it('answers an unknown path 404 whatever type its body has, without reading it', async () => {
    const body = 'x'.repeat(100);
    const reply = await sendRaw(
      port,
      `POST /alpha/v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    assert.equal(reply.status, 404);
    assert.deepEqual(JSON.parse(reply.body), { alpha: { kind: 'not-found', detail: '/alpha/v1/nothing', path: '/alpha/v1/nothing' } });
  });

  it('lets a path segment be longer than 100 characters, for the family to judge', async () => {
    const name = 'n'.repeat(300);
    const reply = await sendRaw(port, get(`/alpha/v1/items/${name}`, 'Connection: close\r\n'));
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { name });
  });
});

describe('a body sent without framing', () => {
  it('does not run the request it trails; the client gets one 400 and nothing changed', async () => {
    const reply = await sendRaw(port, `DELETE /alpha/v1/items/gone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{"etag":"1"}`, 200);
    assert.equal(reply.status, 400);
    assert.deepEqual(JSON.parse(reply.body), {
      alpha: { kind: 'bad-request', detail: 'Your client has issued a malformed or illegal request.', path: '/alpha/v1/items/gone' },
    });
    assert.equal(reply.raw.match(/^HTTP\/1\.1 /gm)?.length, 1);
    assert.deepEqual(deletes, []);
  });

  it('still runs a framed request', async () => {
    const reply = await sendRaw(
      port,
      'DELETE /alpha/v1/items/framed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    assert.equal(reply.status, 200);
    assert.deepEqual(deletes, ['framed']);
  });
});

describe('registeredRoutes', () => {
  it('lists every route with the family that registered it, once every family is built', async () => {
    await app.warmUp();
    const routes = registeredRoutes(app).filter((route) => route.method !== 'HEAD');
    assert.deepEqual(routes, [
      { method: 'GET', url: '/healthz', family: undefined },
      { method: 'GET', url: '/alpha/v1/items/:name', family: 'alpha' },
      { method: 'DELETE', url: '/alpha/v1/items/:name', family: 'alpha' },
      { method: 'GET', url: '/alpha/v1/beta/things', family: 'beta' },
    ]);
  });
});

describe('each family is built by its first request', () => {
  const context = () => ({
    store: new MemoryStore(),
    clock: new ManualClock(),
    timers: realTimers,
    ids: seededIds('lazy'),
    auth: new Authenticator('admin', []),
    operations: 'instant' as const,
  });

  it('builds no family to start or to answer /healthz, and each one once, however many requests wait for it', async () => {
    const built: string[] = [];
    const counted = (name: string, prefix: string, fallback: boolean): ServiceDefinition => {
      const definition = family(name, prefix, fallback, (app) => {
        app.get(`${prefix}/ping`, async () => ({ from: name }));
      });
      const register = definition.register.bind(definition);
      return {
        ...definition,
        register: async (app, ctx) => {
          built.push(name);
          return register(app, ctx);
        },
      };
    };
    const server = await buildServer(context(), [counted('first', '/first', true), counted('second', '/second', false)], {
      logLevel: 'silent',
      bodyLimit: 1024,
    });
    try {
      const health = await server.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(JSON.parse(health.body), { status: 'ok', store: { backend: 'memory', ok: true } });
      assert.equal((await server.inject({ method: 'HEAD', url: '/healthz/' })).body, '');
      assert.deepEqual(built, []);
      assert.deepEqual(
        registeredRoutes(server).map((route) => route.url),
        ['/healthz', '/healthz'],
      );
      const answers = await Promise.all([1, 2, 3].map(() => server.inject({ method: 'GET', url: '/second/ping' })));
      assert.deepEqual(
        answers.map((answer) => JSON.parse(answer.body)),
        [{ from: 'second' }, { from: 'second' }, { from: 'second' }],
      );
      assert.deepEqual(built, ['second']);
      // Any other method on /healthz is an unknown path, the fallback family's to answer.
      const posted = await server.inject({ method: 'POST', url: '/healthz' });
      assert.equal(posted.statusCode, 404);
      assert.deepEqual(JSON.parse(posted.body), { first: { kind: 'not-found', detail: '/healthz', path: '/healthz' } });
      assert.deepEqual(built, ['second', 'first']);
    } finally {
      await server.close();
    }
  });

  it('answers in the family dialect when its build fails, and builds it with the next request', async () => {
    let attempts = 0;
    const flaky = family('flaky', '/flaky', true, (app) => {
      app.get('/flaky/ping', async () => ({ ok: true }));
    });
    const register = flaky.register.bind(flaky);
    flaky.register = async (app, ctx) => {
      attempts += 1;
      if (attempts === 1) throw new TransportProblemError({ httpStatus: 503, kind: 'unavailable', detail: 'store down' });
      return register(app, ctx);
    };
    const server = await buildServer(context(), [flaky], { logLevel: 'silent', bodyLimit: 1024 });
    try {
      const failed = await server.inject({ method: 'GET', url: '/flaky/ping?x=1' });
      assert.equal(failed.statusCode, 503);
      assert.deepEqual(JSON.parse(failed.body), { flaky: { kind: 'unavailable', detail: 'store down', path: '/flaky/ping' } });
      const served = await server.inject({ method: 'GET', url: '/flaky/ping' });
      assert.equal(served.statusCode, 200);
      assert.deepEqual(JSON.parse(served.body), { ok: true });
      assert.equal(attempts, 2);
      // The failed attempt recorded no route: each route is listed once.
      assert.deepEqual(
        registeredRoutes(server)
          .filter((route) => route.family === 'flaky')
          .map((route) => `${route.method} ${route.url}`),
        ['GET /flaky/ping', 'HEAD /flaky/ping'],
      );
    } finally {
      await server.close();
    }
  });

  it('warms every family in the background once: its build, then its warmUp, a request meanwhile answered', async () => {
    const steps: string[] = [];
    const warmed = (name: string, prefix: string, fallback: boolean): ServiceDefinition => {
      const definition = family(name, prefix, fallback, (app) => {
        app.get(`${prefix}/ping`, async () => ({ from: name }));
      });
      return {
        ...definition,
        register: async (app, ctx) => {
          steps.push(`build ${name}`);
          await definition.register(app, ctx);
          return { close: async () => {}, warmUp: async () => void steps.push(`warm ${name}`) };
        },
      };
    };
    const server = await buildServer(context(), [warmed('first', '/first', true), warmed('second', '/second', false)], { logLevel: 'silent', bodyLimit: 1024 });
    try {
      await server.listen({ host: '127.0.0.1', port: 0 });
      const address = server.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
      server.warmUpInBackground();
      server.warmUpInBackground();
      const answer = await fetch(`${url}/second/ping`);
      assert.deepEqual(await answer.json(), { from: 'second' });
      for (let i = 0; i < 1000 && steps.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      // Each family built once, whether by the request or by the warm-up, and warmed after its build.
      assert.deepEqual(steps.filter((step) => step.startsWith('build')).sort(), ['build first', 'build second']);
      assert.deepEqual(
        steps.filter((step) => step.startsWith('warm')),
        ['warm first', 'warm second'],
      );
      assert.ok(steps.indexOf('warm second') > steps.indexOf('build second'));
    } finally {
      await server.close();
    }
  });

  it('answers a family first called while the server closes with its dialect 503, building nothing', async () => {
    const built: string[] = [];
    const late = family('late', '/late', true, () => {});
    const server = await buildServer(context(), [{ ...late, register: async () => void built.push('late') }], { logLevel: 'silent', bodyLimit: 1024 });
    await server.close();
    const answer = await server.inject({ method: 'GET', url: '/late/x' });
    assert.equal(answer.statusCode, 503);
    assert.deepEqual(JSON.parse(answer.body), { late: { kind: 'unavailable', detail: 'The service is shutting down.', path: '/late/x' } });
    assert.deepEqual(built, []);
  });
});
