import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServedCustomResourceNames } from './crd/served-names.ts';
import { clusterFaultMethods } from './fault-methods.ts';
import { apiGroupVocabulary } from './identifiers.ts';
import { CLUSTER_GROUP_PREFIXES } from './index.ts';

describe('cluster fault method ids', () => {
  const methods = clusterFaultMethods(apiGroupVocabulary(CLUSTER_GROUP_PREFIXES));

  it('accepts a verb and any resource the cluster serves, built-in kinds and subresources included', () => {
    for (const id of ['get pods', 'watch leases', 'create serviceaccounts/token', 'update deployments/status', 'create tokenreviews', 'delete rolebindings'])
      assert.equal(methods.problem(id), undefined, id);
  });

  it('names an unknown verb or resource', () => {
    assert.equal(
      methods.problem('fetch pods'),
      'unknown verb "fetch" in "fetch pods" (the verbs are get, list, watch, create, update, patch, delete, deletecollection)',
    );
    assert.match(methods.problem('get widgets') ?? '', /^unknown resource "widgets" in "get widgets" \(the resources are .*\bpods\b.*\)$/);
    assert.equal(methods.problem('pods'), '"pods" is not a Kubernetes verb and resource such as "get clusterroles"');
  });

  it('accepts the plural of a custom resource once it is served', () => {
    const custom = new ServedCustomResourceNames();
    const withCustom = clusterFaultMethods(apiGroupVocabulary(CLUSTER_GROUP_PREFIXES), custom);
    assert.match(withCustom.problem('get cron-tabs') ?? '', /^unknown resource "cron-tabs" in "get cron-tabs"/);
    custom.replace(['cron-tabs']);
    assert.equal(withCustom.problem('get cron-tabs'), undefined);
    assert.equal(withCustom.problem('update cron-tabs/status'), undefined);
    assert.equal(withCustom.problem('create customresourcedefinitions'), undefined);
    assert.equal(withCustom.methodOf('PATCH', '/apis/stable.example.com/v1/namespaces/default/cron-tabs/x/scale'), 'patch cron-tabs/scale');
  });

  it('reads a request as its verb and resource', () => {
    assert.equal(methods.methodOf('GET', '/api/v1/namespaces/default/pods/web'), 'get pods');
    assert.equal(methods.methodOf('POST', '/api/v1/namespaces/default/serviceaccounts/default/token'), 'create serviceaccounts/token');
    assert.equal(methods.methodOf('GET', '/version'), undefined);
  });
});
