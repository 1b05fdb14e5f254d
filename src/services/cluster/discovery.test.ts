import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../testing/cluster-harness.ts';

const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('discovery, OpenAPI, representations and the api domain', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'r', labels: { a: 'b' } }, rules: [] });
  });
  after(async () => h.close());

  it('serves aggregated discovery with an ETag and answers a matching If-None-Match with 304, as kubectl revalidates its cache', async () => {
    const first = await h.call('GET', '/apis', undefined, { accept: AGGREGATED });
    const etag = first.headers['etag'] as string;
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    const again = await h.call('GET', '/apis', undefined, { accept: AGGREGATED, 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body, '');
    const core = await h.call('GET', '/api', undefined, { accept: AGGREGATED, 'if-none-match': etag });
    assert.equal(core.status, 200);
    assert.notEqual(core.headers['etag'], etag);
  });

  it('answers aggregated discovery v2 with its media type, and the legacy forms otherwise', async () => {
    const aggregated = await h.call('GET', '/api', undefined, { accept: AGGREGATED });
    assert.equal(aggregated.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.deepEqual(
      aggregated.body.items[0].versions[0].resources.map((r: { resource: string; scope: string }) => `${r.resource}:${r.scope}`),
      [
        'configmaps:Namespaced',
        'endpoints:Namespaced',
        'events:Namespaced',
        'limitranges:Namespaced',
        'namespaces:Cluster',
        'nodes:Cluster',
        'persistentvolumeclaims:Namespaced',
        'persistentvolumes:Cluster',
        'pods:Namespaced',
        'podtemplates:Namespaced',
        'replicationcontrollers:Namespaced',
        'resourcequotas:Namespaced',
        'secrets:Namespaced',
        'serviceaccounts:Namespaced',
        'services:Namespaced',
      ],
    );
    const groups = await h.call('GET', '/apis', undefined, { accept: AGGREGATED });
    assert.deepEqual(
      groups.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
      [
        'apiregistration.k8s.io',
        'apps',
        'events.k8s.io',
        'authentication.k8s.io',
        'authorization.k8s.io',
        'autoscaling',
        'batch',
        'certificates.k8s.io',
        'networking.k8s.io',
        'policy',
        'rbac.authorization.k8s.io',
        'storage.k8s.io',
        'admissionregistration.k8s.io',
        'apiextensions.k8s.io',
        'scheduling.k8s.io',
        'coordination.k8s.io',
        'node.k8s.io',
        'discovery.k8s.io',
        'flowcontrol.apiserver.k8s.io',
      ],
    );
    const reviews = groups.body.items[4].versions[0].resources;
    assert.deepEqual(
      reviews.map(
        (r: { resource: string; scope: string; verbs: string[]; responseKind: { kind: string } }) =>
          `${r.resource}:${r.scope}:${r.verbs.join(',')}:${r.responseKind.kind}`,
      ),
      [
        'localsubjectaccessreviews:Namespaced:create:LocalSubjectAccessReview',
        'selfsubjectaccessreviews:Cluster:create:SelfSubjectAccessReview',
        'selfsubjectrulesreviews:Cluster:create:SelfSubjectRulesReview',
        'subjectaccessreviews:Cluster:create:SubjectAccessReview',
      ],
    );
    const rbac = groups.body.items[10].versions[0].resources;
    assert.deepEqual(
      rbac.map((r: { resource: string; scope: string }) => `${r.resource}:${r.scope}`),
      ['clusterrolebindings:Cluster', 'clusterroles:Cluster', 'rolebindings:Namespaced', 'roles:Namespaced'],
    );
    const reviewList = await h.call('GET', '/apis/authorization.k8s.io/v1');
    assert.deepEqual(reviewList.body.resources[1], {
      name: 'selfsubjectaccessreviews',
      singularName: 'selfsubjectaccessreview',
      namespaced: false,
      kind: 'SelfSubjectAccessReview',
      verbs: ['create'],
    });
    const legacy = await h.call('GET', '/apis/events.k8s.io/v1');
    assert.deepEqual(legacy.body, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'events.k8s.io/v1',
      resources: [
        {
          name: 'events',
          singularName: 'event',
          namespaced: true,
          kind: 'Event',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['ev'],
        },
      ],
    });
    assert.equal((await h.call('GET', '/apis/apps.example')).status, 404);
    const version = await h.call('GET', '/version');
    assert.equal(version.body.gitVersion, 'v1.32.0');
  });

  it('serves OpenAPI v3 with the kinds, the fieldValidation parameter and immutable caching by hash', async () => {
    const index = await h.call('GET', '/openapi/v3');
    const relative: string = index.body.paths['apis/rbac.authorization.k8s.io/v1'].serverRelativeURL;
    const document = await h.call('GET', relative);
    assert.equal(document.headers['cache-control'], 'public, immutable');
    const role = document.body.components.schemas['io.k8s.api.rbac.v1.ClusterRole'];
    assert.deepEqual(role['x-kubernetes-group-version-kind'], [{ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', version: 'v1' }]);
    assert.equal(role.properties.rules['x-kubernetes-list-type'], 'atomic');
    const patch = document.body.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'].patch;
    assert.ok(patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation' && p.in === 'query'));
    const stale = await h.call('GET', '/openapi/v3/apis/rbac.authorization.k8s.io/v1?hash=OLD');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers['location'], relative);
    const events = await h.call('GET', '/openapi/v3/apis/events.k8s.io/v1');
    assert.equal(events.body.components.schemas['io.k8s.api.core.v1.ObjectReference']['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(events.body.components.schemas['io.k8s.api.events.v1.Event'].required, ['eventTime']);
  });

  it('answers PartialObjectMetadata, Table options and 406', async () => {
    const partial = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', undefined, {
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    });
    assert.equal(partial.headers['content-type'], 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    assert.equal(partial.body.kind, 'PartialObjectMetadataList');
    assert.deepEqual(Object.keys(partial.body.items[0]), ['kind', 'apiVersion', 'metadata']);
    const none = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?includeObject=None', undefined, {
      accept: 'application/json;as=Table;g=meta.k8s.io;v=v1',
    });
    assert.deepEqual(Object.keys(none.body.rows[0]), ['cells']);
    const full = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?includeObject=Object', undefined, {
      accept: 'application/json;as=Table;g=meta.k8s.io;v=v1',
    });
    assert.equal(full.body.rows[0].object.kind, 'ClusterRole');
    const bad = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?includeObject=All', undefined, {
      accept: 'application/json;as=Table;g=meta.k8s.io;v=v1',
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      "TableOptions.meta.k8s.io \"\" is invalid: includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty",
    );
    const protobufOnly = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(protobufOnly.status, 406);
    assert.equal(
      protobufOnly.body.message,
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });
});

describe('a configured api domain', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness({ apiDomain: 'example.io' });
  });
  after(async () => h.close());

  it('accepts both spellings of a group and answers in the one the client used', async () => {
    const spec = await h.call('POST', '/apis/rbac.authorization.example.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.example.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'spec-spelled' },
      rules: [],
    });
    assert.equal(spec.status, 201);
    assert.equal(spec.body.apiVersion, 'rbac.authorization.example.io/v1');
    const real = await h.call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/spec-spelled');
    assert.equal(real.body.apiVersion, 'rbac.authorization.k8s.io/v1');
    const missing = await h.call('GET', '/apis/rbac.authorization.example.io/v1/clusterroles/none');
    assert.equal(missing.body.message, 'clusterroles.rbac.authorization.example.io "none" not found');
    const groups = await h.call('GET', '/apis');
    assert.deepEqual(
      groups.body.groups.map((group: { name: string }) => group.name),
      [
        'apiregistration.example.io',
        'apps',
        'events.example.io',
        'authentication.example.io',
        'authorization.example.io',
        'autoscaling',
        'batch',
        'certificates.example.io',
        'networking.example.io',
        'policy',
        'rbac.authorization.example.io',
        'storage.example.io',
        'admissionregistration.example.io',
        'apiextensions.example.io',
        'scheduling.example.io',
        'coordination.example.io',
        'node.example.io',
        'discovery.example.io',
        'flowcontrol.apiserver.example.io',
      ],
    );
  });
});
