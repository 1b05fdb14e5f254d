import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const PROTOBUF = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf, */*' };
// What kubectl auth whoami sends as JSON.
const REVIEW_BODY = { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, status: { userInfo: {} } };

/** protobufBody wraps an object's bytes in the `k8s\0` magic and the runtime.Unknown envelope. */
function protobufBody(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = new BinaryWriter().tag(1, WireType.LengthDelimited).string(apiVersion).tag(2, WireType.LengthDelimited).string(kind).finish();
  const unknown = new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(typeMeta).tag(2, WireType.LengthDelimited).bytes(raw).finish();
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown]);
}

async function post(h: ClusterHarness, url: string, payload: Buffer, headers: Record<string, string>, token = 'cluster-admin-token') {
  const raw = await h.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: raw.statusCode, body: JSON.parse(raw.body) };
}

describe('SelfSubjectReview (kubectl auth whoami)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness({ bootstrapPolicy: true });
  });
  after(async () => h.close());

  it('answers who the caller is: the admin, in system:masters', async () => {
    const answer = await h.call('POST', REVIEWS, REVIEW_BODY);
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.body, {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: '2025-01-01T00:00:00Z' },
      status: { userInfo: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] } },
    });
  });

  it('lets every authenticated user ask (the default policy grants it to system:basic-user)', async () => {
    const answer = await h.call('POST', REVIEWS, REVIEW_BODY, { authorization: 'Bearer alice-token' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.status, { userInfo: { username: 'alice@example.com', groups: ['devs', 'system:authenticated'] } });
    const anonymous = await h.call('POST', REVIEWS, REVIEW_BODY, { authorization: '' });
    assert.equal(anonymous.status, 401);
  });

  it('answers as the impersonated user', async () => {
    const answer = await h.call('POST', REVIEWS, REVIEW_BODY, { 'impersonate-user': 'bob', 'impersonate-group': 'team' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.status.userInfo.username, 'bob');
    assert.deepEqual(answer.body.status.userInfo.groups, ['team', 'system:authenticated']);
  });

  it("reads the protobuf body kubectl's typed client sends", async () => {
    const meta = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .bytes(new Uint8Array())
      .tag(2, WireType.LengthDelimited)
      .bytes(new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(new Uint8Array()).finish())
      .finish();
    const answer = await post(h, REVIEWS, protobufBody('authentication.k8s.io/v1', 'SelfSubjectReview', meta), PROTOBUF);
    assert.equal(answer.status, 201);
    assert.equal(answer.body.status.userInfo.username, 'system:admin');
  });

  it("refuses a body of another kind with the decoder's 400", async () => {
    const answer = await h.call('POST', REVIEWS, { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1' });
    assert.equal(answer.status, 400);
    assert.equal(
      answer.body.message,
      'TokenReview in version "v1" cannot be handled as a SelfSubjectReview: no kind "TokenReview" is registered for version "authentication.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  it("answers a kind or apiVersion that is not a string with the type-meta decoder's 400, never reading it as text", async () => {
    const kind = await h.call('POST', REVIEWS, { kind: { toString: [] } });
    assert.equal(kind.status, 400);
    assert.equal(kind.body.message, "couldn't get version/kind; json parse error: json: cannot unmarshal object into Go struct field .kind of type string");
    const apiVersion = await h.call('POST', REVIEWS, { apiVersion: [1] });
    assert.equal(apiVersion.status, 400);
    assert.equal(
      apiVersion.body.message,
      "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go struct field .apiVersion of type string",
    );
  });

  it('is listed in discovery as a cluster-scoped, create-only resource', async () => {
    const aggregated = await h.call('GET', '/apis', undefined, { accept: AGGREGATED });
    const group = aggregated.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'authentication.k8s.io');
    assert.deepEqual(group.versions, [
      {
        version: 'v1',
        resources: [
          {
            resource: 'selfsubjectreviews',
            responseKind: { group: '', version: '', kind: 'SelfSubjectReview' },
            scope: 'Cluster',
            singularResource: 'selfsubjectreview',
            verbs: ['create'],
          },
          {
            resource: 'tokenreviews',
            responseKind: { group: '', version: '', kind: 'TokenReview' },
            scope: 'Cluster',
            singularResource: 'tokenreview',
            verbs: ['create'],
          },
        ],
        freshness: 'Current',
      },
    ]);
    const legacy = await h.call('GET', '/apis/authentication.k8s.io/v1');
    assert.deepEqual(legacy.body, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'authentication.k8s.io/v1',
      resources: [
        { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
        { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
      ],
    });
    const apiGroup = await h.call('GET', '/apis/authentication.k8s.io');
    assert.equal(apiGroup.body.preferredVersion.groupVersion, 'authentication.k8s.io/v1');
  });

  it('is described in OpenAPI v3: the create operation with its kind, and the types', async () => {
    const index = await h.call('GET', '/openapi/v3');
    const doc = await h.call('GET', index.body.paths['apis/authentication.k8s.io/v1'].serverRelativeURL);
    assert.equal(doc.status, 200);
    const path = doc.body.paths['/apis/authentication.k8s.io/v1/selfsubjectreviews'];
    assert.deepEqual(Object.keys(path), ['post', 'parameters']);
    assert.equal(path.post['x-kubernetes-action'], 'post');
    assert.deepEqual(path.post['x-kubernetes-group-version-kind'], { group: 'authentication.k8s.io', kind: 'SelfSubjectReview', version: 'v1' });
    assert.deepEqual(
      path.post.parameters.map((p: { name: string }) => p.name),
      ['dryRun', 'fieldManager', 'fieldValidation'],
    );
    const schemas = doc.body.components.schemas;
    assert.deepEqual(schemas['io.k8s.api.authentication.v1.SelfSubjectReview']['x-kubernetes-group-version-kind'], [
      { group: 'authentication.k8s.io', kind: 'SelfSubjectReview', version: 'v1' },
    ]);
    assert.deepEqual(Object.keys(schemas['io.k8s.api.authentication.v1.UserInfo'].properties), ['extra', 'groups', 'uid', 'username']);
  });
});

describe('a protobuf body is decoded only on a route that is served', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it('answers 404 for an unknown route whatever the protobuf body, and 400 for an unserved kind on a served route', async () => {
    // Binding (the pods/binding subresource's kind) is not served here, and has no protobuf layout.
    const binding = protobufBody('v1', 'Binding', new Uint8Array([0x0a, 0x00]));
    const unknownRoute = await post(h, '/api/v1/namespaces/default/bindings', binding, PROTOBUF);
    assert.equal(unknownRoute.status, 404);
    assert.equal(unknownRoute.body.message, 'the server could not find the requested resource');
    // resource.k8s.io/v1beta1 is a beta API, off in a default 1.32 apiserver.
    const deviceClass = protobufBody('resource.k8s.io/v1beta1', 'DeviceClass', new Uint8Array());
    const unknownGroup = await post(h, '/apis/resource.k8s.io/v1beta1/deviceclasses', deviceClass, PROTOBUF);
    assert.equal(unknownGroup.status, 404);
    const garbage = await post(h, '/apis/authentication.k8s.io/v1/widgets', Buffer.from('not protobuf'), PROTOBUF);
    assert.equal(garbage.status, 404);
    const servedRoute = await post(h, '/api/v1/namespaces', binding, PROTOBUF);
    assert.equal(servedRoute.status, 400);
    assert.equal(servedRoute.body.message, 'no kind "Binding" is registered for version "v1"');
    const review = await post(h, REVIEWS, binding, PROTOBUF);
    assert.equal(review.status, 400);
  });
});
