import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestVerb } from './request-verb.ts';

describe('requestVerb (the journal name of a cluster request)', () => {
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
    ];
    for (const [method, url, name] of cases) assert.equal(requestVerb(method, url), name, `${method} ${url}`);
  });

  it('names other requests by verb and path', () => {
    assert.equal(requestVerb('GET', '/version'), 'get /version');
    assert.equal(requestVerb('GET', '/apis'), 'get /apis');
    assert.equal(requestVerb('HEAD', '/api/v1?x=1'), 'get /api/v1');
  });
});
