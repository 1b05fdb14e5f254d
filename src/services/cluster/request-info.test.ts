import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { useRequestInfo } from '../../core/request-info.ts';
import { apiGroupVocabulary } from './identifiers.ts';
import { CLUSTER_GROUP_PREFIXES } from './index.ts';
import { attributesOf, ClusterRequestInfo, clusterRequestOf, requestVerb } from './request-info.ts';

const groups = apiGroupVocabulary(CLUSTER_GROUP_PREFIXES, 'example.io');
const pick = (method: string, url: string) => {
  const a = attributesOf(method, url, groups);
  return [a.verb, a.resourceRequest, a.apiGroup, a.apiGroupSpelled, a.resource, a.subresource, a.name, a.namespace];
};

// RequestInfoFactory's reading of URLs (upstream apiserver/pkg/endpoints/request/requestinfo.go).
const CASES: ReadonlyArray<[string, string, unknown[]]> = [
  [
    'GET',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    ['list', true, 'rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', 'clusterroles', '', '', ''],
  ],
  [
    'GET',
    '/apis/rbac.authorization.example.io/v1/clusterroles/a?x=1',
    ['get', true, 'rbac.authorization.k8s.io', 'rbac.authorization.example.io', 'clusterroles', '', 'a', ''],
  ],
  [
    'GET',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles?watch=true&fieldSelector=metadata.name%3Da',
    ['watch', true, 'rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', 'clusterroles', '', 'a', ''],
  ],
  ['GET', '/api/v1/namespaces/ns1/events/e%3A1', ['get', true, '', '', 'events', '', 'e:1', 'ns1']],
  // Decoded once, as Go's URL.Path: `%25` is a percent sign, never decoded again.
  ['GET', '/api/v1/namespaces/ns1/events/e%252F1', ['get', true, '', '', 'events', '', 'e%2F1', 'ns1']],
  ['GET', '/api/v1/watch/namespaces/ns1/events', ['watch', true, '', '', 'events', '', '', 'ns1']],
  ['HEAD', '/api/v1/namespaces/ns1/events/e', ['get', true, '', '', 'events', '', 'e', 'ns1']],
  ['GET', '/api/v1/namespaces/ns1', ['get', true, '', '', 'namespaces', '', 'ns1', 'ns1']],
  ['PUT', '/api/v1/namespaces/ns1/finalize', ['update', true, '', '', 'namespaces', 'finalize', 'ns1', 'ns1']],
  ['DELETE', '/api/v1/namespaces/ns1/events', ['deletecollection', true, '', '', 'events', '', '', 'ns1']],
  ['PATCH', '/apis/events.k8s.io/v1/namespaces/ns1/events/e', ['patch', true, 'events.k8s.io', 'events.k8s.io', 'events', '', 'e', 'ns1']],
  [
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    ['create', true, 'rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', 'clusterrolebindings', '', '', ''],
  ],
  ['GET', '/apis/rbac.authorization.k8s.io/v1', ['get', false, '', '', '', '', '', '']],
  ['GET', '/openapi/v3', ['get', false, '', '', '', '', '', '']],
];

describe('request attributes from URLs', () => {
  for (const [method, url, want] of CASES) it(`${method} ${url}`, () => assert.deepEqual(pick(method, url), want));
});

describe('the journal and fault name of a cluster request (methodId)', () => {
  const name = requestVerb(groups);
  it('names resource requests by verb and resource, as RBAC does', () => {
    const cases: [string, string, string][] = [
      ['POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', 'create clusterroles'],
      ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', 'list clusterroles'],
      ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', 'get clusterroles'],
      ['GET', '/api/v1/namespaces/default/events?watch=true&resourceVersion=1', 'watch events'],
      ['GET', '/api/v1/watch/namespaces/default/events', 'watch events'],
      ['GET', '/api/v1/namespaces', 'list namespaces'],
      ['GET', '/api/v1/namespaces/default', 'get namespaces'],
      ['PUT', '/api/v1/namespaces/default/finalize', 'update namespaces/finalize'],
      ['PATCH', '/apis/events.k8s.io/v1/namespaces/ns/events/e1', 'patch events'],
      ['DELETE', '/apis/events.k8s.io/v1/namespaces/ns/events', 'deletecollection events'],
      ['DELETE', '/apis/events.k8s.io/v1/namespaces/ns/events/e1', 'delete events'],
      ['POST', '/api/v1/namespaces/default/serviceaccounts/default/token', 'create serviceaccounts/token'],
    ];
    for (const [method, url, want] of cases) assert.equal(name(method, url), want, `${method} ${url}`);
  });

  it('names other requests by verb and path', () => {
    assert.equal(name('GET', '/version'), 'get /version');
    assert.equal(name('GET', '/apis'), 'get /apis');
    assert.equal(name('HEAD', '/api/v1?x=1'), 'get /api/v1');
  });
});

describe('what the handler resolves (group, version, the path below the version)', () => {
  it('reads /api and /apis paths, a deprecated watch path and the rest', () => {
    const facts = (method: string, url: string) => {
      const info = new ClusterRequestInfo(method, url);
      return [info.group, info.version, info.watchPath, info.target, info.resourceRequest];
    };
    assert.deepEqual(facts('GET', '/api/v1/namespaces/a/pods/p?x=1'), ['', 'v1', false, ['namespaces', 'a', 'pods', 'p'], true]);
    assert.deepEqual(facts('GET', '/apis/apps/v1/watch/deployments'), ['apps', 'v1', true, ['deployments'], true]);
    assert.deepEqual(facts('GET', '/apis/apps/v1/watch'), ['apps', 'v1', false, ['watch'], true]);
    assert.deepEqual(facts('GET', '/apis/apps'), ['apps', undefined, false, [], false]);
    assert.deepEqual(facts('GET', '/api//v1//pods/'), ['', 'v1', false, ['pods'], true]);
    assert.deepEqual(facts('GET', '/version'), ['', undefined, false, [], false]);
  });

  it('is read once per request: every reader shares the same record, and the attributes are read once', async () => {
    const app = Fastify();
    useRequestInfo(app);
    let first: ClusterRequestInfo | undefined;
    app.addHook('onRequest', (request, _reply, done) => {
      first = clusterRequestOf(request);
      done();
    });
    app.get('/*', async (request) => {
      const info = clusterRequestOf(request);
      const attributes = info.attributes(groups);
      return { same: info === first, attributes: attributes === clusterRequestOf(request).attributes(groups), id: info.methodId(groups) };
    });
    const answer = await app.inject({ method: 'GET', url: '/api/v1/namespaces/a/pods/p' });
    assert.deepEqual(answer.json(), { same: true, attributes: true, id: 'get pods' });
    await app.close();
  });
});
