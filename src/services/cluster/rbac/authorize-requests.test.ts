import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiGroupVocabulary } from '../identifiers.ts';
import { CLUSTER_GROUP_PREFIXES } from '../index.ts';
import { attributesOf } from './authorize-requests.ts';

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
