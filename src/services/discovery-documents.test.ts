import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { registeredRoutes } from '../core/route-registry.ts';
import { startFogbank, type RunningFogbank } from '../testing/fogbank.ts';
import { COMPUTE_DISCOVERY } from './compute/discovery.ts';
import { MAIL_DISCOVERY } from './mail/discovery.ts';
import { PUBLISHER_DISCOVERY } from './publisher/discovery.ts';

// biome-ignore lint/suspicious/noExplicitAny: the tests walk arbitrary nested fields of whole Discovery documents
type Json = Record<string, any>;

/** GOOGLE is what Google's published documents say of each method fogbank serves (scripts/discovery-fixture.ts). */
const GOOGLE = JSON.parse(readFileSync(new URL('../../test/fixtures/discovery/google-methods.json', import.meta.url), 'utf8')) as {
  apis: Record<string, { servicePath: string; batchPath: string; methods: Json[] }>;
};
const APIS = [COMPUTE_DISCOVERY, MAIL_DISCOVERY, PUBLISHER_DISCOVERY];
const FAMILY_OF: Record<string, string> = { compute: 'compute', gmail: 'mail', androidpublisher: 'publisher' };

let server: RunningFogbank;
before(async () => {
  server = await startFogbank({ ephemeral: true });
});
after(async () => {
  await server.close();
});

async function get(url: string, host = 'fogbank.test:8780'): Promise<{ status: number; body: Json }> {
  const response = await server.app.inject({ method: 'GET', url, headers: { host } });
  return { status: response.statusCode, body: response.json() as Json };
}

/** methodsOf flattens a document's resources into its methods, by id. */
function methodsOf(resources: Json | undefined): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const resource of Object.values(resources ?? {}) as Json[]) {
    for (const method of Object.values(resource['methods'] ?? {}) as Json[]) out.set(method['id'], method);
    for (const [id, method] of methodsOf(resource['resources'])) out.set(id, method);
  }
  return out;
}

const PARAMETER_FACTS = ['type', 'location', 'required', 'repeated', 'format'];

describe('Discovery documents agree with Google’s for every method fogbank serves', () => {
  for (const api of APIS) {
    it(`${api.name} ${api.version}: ids, HTTP methods, paths, parameters and media uploads as Google publishes them`, async () => {
      const { status, body } = await get(`/discovery/v1/apis/${api.name}/${api.version}/rest`);
      assert.equal(status, 200);
      const google = GOOGLE.apis[`${api.name}:${api.version}`]!;
      assert.equal(body['servicePath'], google.servicePath);
      assert.equal(body['batchPath'], google.batchPath);
      const served = methodsOf(body['resources']);
      assert.deepEqual([...served.keys()].sort(), google.methods.map((method) => method['id']).sort());
      for (const expected of google.methods) {
        const method = served.get(expected['id'])!;
        const facts = {
          id: method['id'],
          httpMethod: method['httpMethod'],
          path: method['path'],
          flatPath: method['flatPath'],
          parameterOrder: method['parameterOrder'],
          parameters: Object.fromEntries(
            Object.entries(method['parameters'] as Json).map(([name, parameter]) => [
              name,
              Object.fromEntries(PARAMETER_FACTS.filter((key) => parameter[key] !== undefined).map((key) => [key, parameter[key]])),
            ]),
          ),
          ...(method['request'] === undefined ? {} : { request: method['request']['$ref'] }),
          ...(method['response'] === undefined ? {} : { response: method['response']['$ref'] }),
          ...(method['mediaUpload'] === undefined ? {} : { mediaUpload: method['mediaUpload'] }),
        };
        const { source: _source, ...wanted } = expected;
        assert.deepEqual(facts, wanted, `${expected['id']} (Google's facts from ${String(_source)})`);
        assert.equal(method['supportsMediaUpload'], expected['mediaUpload'] === undefined ? undefined : true, expected['id']);
      }
    });

    it(`${api.name} ${api.version}: every schema a method names is in the document, and every $ref resolves`, async () => {
      const { body } = await get(`/discovery/v1/apis/${api.name}/${api.version}/rest`);
      const schemas = body['schemas'] as Json;
      const refs = new Set<string>();
      const walk = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(walk);
        else if (typeof value === 'object' && value !== null) {
          for (const [key, inner] of Object.entries(value)) {
            if (key === '$ref') refs.add(String(inner));
            else walk(inner);
          }
        }
      };
      walk(body['resources']);
      walk(schemas);
      assert.deepEqual(
        [...refs].filter((ref) => schemas[ref] === undefined),
        [],
      );
      for (const [id, schema] of Object.entries(schemas)) assert.equal((schema as Json)['id'], id);
    });
  }

  it('names only methods fogbank routes, and routes only methods it names (besides upload sessions’ PUTs)', () => {
    const normalise = (path: string): string => path.replace(/:[^/]+|\{[^}]+\}/g, '{}');
    for (const api of APIS) {
      const base = `/${api.servicePath}`;
      const expected = new Set<string>();
      const uploads = new Set<string>();
      for (const method of api.methods) {
        expected.add(`${method.httpMethod} ${normalise(base + method.path)}`);
        if (method.mediaUpload !== undefined) {
          for (const prefix of ['/upload', '/resumable/upload']) {
            expected.add(`${method.httpMethod} ${normalise(prefix + base + method.path)}`);
            uploads.add(normalise(prefix + base + method.path));
          }
        }
      }
      const prefix = base === '/' ? `/${api.name}/${api.version}` : base.replace(/\/$/, '');
      const registered = new Set(
        registeredRoutes(server.app)
          .filter((route) => route.family === FAMILY_OF[api.name] && route.method !== 'HEAD')
          .filter((route) =>
            [prefix, `/upload${prefix}`, `/resumable/upload${prefix}`].some((under) => route.url === under || route.url.startsWith(`${under}/`)),
          )
          .map((route) => `${route.method} ${normalise(route.url)}`),
      );
      assert.deepEqual(
        [...expected].filter((route) => !registered.has(route)),
        [],
        `${api.name}: described but not routed`,
      );
      const undescribed = [...registered].filter((route) => !expected.has(route) && !(route.startsWith('PUT ') && uploads.has(route.slice(4))));
      assert.deepEqual(undescribed, [], `${api.name}: routed but not described`);
    }
  });
});

describe('Discovery documents point at fogbank', () => {
  it('puts the address the client used into rootUrl, baseUrl and the media upload paths', async () => {
    const { body } = await get('/discovery/v1/apis/compute/v1/rest', '127.0.0.1:41234');
    assert.equal(body['rootUrl'], 'http://127.0.0.1:41234/');
    assert.equal(body['baseUrl'], 'http://127.0.0.1:41234/compute/v1/');
    assert.equal(body['basePath'], '/compute/v1/');
    const gmail = (await get('/discovery/v1/apis/gmail/v1/rest', 'localhost:9')).body;
    assert.equal(gmail['rootUrl'], 'http://localhost:9/');
    assert.equal(gmail['baseUrl'], 'http://localhost:9/');
    const send = gmail['resources']['users']['resources']['messages']['methods']['send'];
    assert.deepEqual(send['mediaUpload'], {
      accept: ['message/*'],
      maxSize: '36700160',
      protocols: {
        simple: { multipart: true, path: '/upload/gmail/v1/users/{userId}/messages/send' },
        resumable: { multipart: true, path: '/resumable/upload/gmail/v1/users/{userId}/messages/send' },
      },
    });
    assert.equal(gmail['kind'], 'discovery#restDescription');
    assert.equal(gmail['id'], 'gmail:v1');
    assert.ok(Object.keys(gmail['auth']['oauth2']['scopes']).includes('https://www.googleapis.com/auth/gmail.send'));
  });

  it('answers in the spec’s spelling when asked by the spec’s name: mail/v1 paths and mail scopes', async () => {
    const { status, body } = await get('/discovery/v1/apis/mail/v1/rest');
    assert.equal(status, 200);
    assert.equal(body['name'], 'mail');
    const send = body['resources']['users']['resources']['messages']['methods']['send'];
    assert.equal(send['path'], 'mail/v1/users/{userId}/messages/send');
    assert.equal(send['mediaUpload']['protocols']['simple']['path'], '/upload/mail/v1/users/{userId}/messages/send');
    assert.ok(send['scopes'].includes('https://www.googleapis.com/auth/mail.send'));
    const publisher = (await get('/discovery/v1/apis/publisher/v3/rest')).body;
    assert.equal(
      publisher['resources']['internalappsharingartifacts']['methods']['uploadbundle']['path'],
      'publisher/v3/applications/internalappsharing/{packageName}/artifacts/bundle',
    );
    assert.deepEqual(Object.keys(publisher['auth']['oauth2']['scopes']), ['https://www.googleapis.com/auth/publisher']);
  });

  it('serves /$discovery/rest by the host’s API name, or by a version only one API has', async () => {
    assert.equal((await get('/$discovery/rest?version=v1', 'gmail.googleapis.com')).body['name'], 'gmail');
    assert.equal((await get('/$discovery/rest?version=v1', 'compute.localhost:8780')).body['name'], 'compute');
    assert.equal((await get('/$discovery/rest', 'gmail.localhost')).body['id'], 'gmail:v1');
    assert.equal((await get('/$discovery/rest?version=v3', '127.0.0.1:8780')).body['name'], 'androidpublisher');
  });

  it('answers Google’s 404 for an API, a version or an address it does not describe', async () => {
    const notFound = {
      error: {
        code: 404,
        message: 'Requested entity was not found.',
        errors: [{ message: 'Requested entity was not found.', domain: 'global', reason: 'notFound' }],
        status: 'NOT_FOUND',
      },
    };
    for (const [url, host] of [
      ['/discovery/v1/apis/gmail/v9/rest', undefined],
      ['/discovery/v1/apis/storage/v1/rest', undefined],
      ['/discovery/v1/apis/gmail/v1/rpc', undefined],
      ['/discovery/v2/apis', undefined],
      ['/$discovery/rpc?version=v1', 'gmail.googleapis.com'],
      // v1 is compute's and gmail's: the host must say which.
      ['/$discovery/rest?version=v1', '127.0.0.1:8780'],
      ['/$discovery/rest?version=v2', 'gmail.googleapis.com'],
    ] as const) {
      const { status, body } = await get(url, host);
      assert.equal(status, 404, url);
      assert.deepEqual(body, notFound, url);
    }
  });

  it('lists the three APIs in the directory, each linked to its document, and filters by name', async () => {
    const { status, body } = await get('/discovery/v1/apis', '127.0.0.1:5');
    assert.equal(status, 200);
    assert.equal(body['kind'], 'discovery#directoryList');
    assert.deepEqual(
      body['items'].map((item: Json) => [item['id'], item['discoveryRestUrl']]),
      [
        ['compute:v1', 'http://127.0.0.1:5/discovery/v1/apis/compute/v1/rest'],
        ['gmail:v1', 'http://127.0.0.1:5/discovery/v1/apis/gmail/v1/rest'],
        ['androidpublisher:v3', 'http://127.0.0.1:5/discovery/v1/apis/androidpublisher/v3/rest'],
      ],
    );
    assert.deepEqual(
      (await get('/discovery/v1/apis?name=publisher')).body['items'].map((item: Json) => item['id']),
      ['publisher:v3'],
    );
  });

  it('needs no credentials, as Google’s Discovery service does not', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/discovery/v1/apis/androidpublisher/v3/rest', headers: { host: 'x' } });
    assert.equal(response.statusCode, 200);
  });
});
