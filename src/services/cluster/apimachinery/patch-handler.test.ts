import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };

describe('PATCH content types over HTTP (reference §4.2)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    await h.call('POST', ROLES, {
      metadata: { name: 'p', labels: { a: '1' }, finalizers: ['example.com/x'] },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    });
  });
  after(async () => h.close());

  it('applies RFC 6902 operations (add, replace, remove, test, copy, move)', async () => {
    const patched = await h.call(
      'PATCH',
      `${ROLES}/p?fieldManager=jp`,
      [
        { op: 'test', path: '/metadata/labels/a', value: '1' },
        { op: 'add', path: '/metadata/labels/b', value: '2' },
        { op: 'copy', from: '/metadata/labels/b', path: '/metadata/labels/c' },
        { op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/d' },
        { op: 'replace', path: '/rules/0/verbs', value: ['get', 'list'] },
        { op: 'add', path: '/rules/-', value: { verbs: ['get'], nonResourceURLs: ['/healthz'] } },
        { op: 'remove', path: '/metadata/finalizers' },
      ],
      JSON_PATCH,
    );
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.metadata.labels, { b: '2', c: '2', d: '1' });
    assert.equal(patched.body.metadata.finalizers, undefined);
    assert.deepEqual(patched.body.rules, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    ]);
  });

  it("answers a JSON patch that does not apply with the apiserver's generic 422, storing nothing", async () => {
    // The apiserver wraps every evanphx/json-patch Apply error in NewGenericServerResponse(422),
    // which keeps none of the library's text.
    const before = await h.store.currentRevision();
    const notApplying = [
      [{ op: 'replace', path: '/spec/x', value: 1 }],
      [{ op: 'add', path: '/a/b', value: 1 }],
      [{ op: 'test', path: '/metadata/labels/b', value: 'nope' }],
      [{ op: 'remove', path: '/metadata/labels/nope' }],
      [{ op: 'copy', from: '/nope', path: '/metadata/labels/x' }],
      [{ op: 'frobnicate', path: '/metadata' }],
      [{ op: 'add', path: '/rules/7', value: {} }],
    ];
    for (const patch of notApplying) {
      const answer = await h.call('PATCH', `${ROLES}/p`, patch, JSON_PATCH);
      assert.equal(answer.status, 422, JSON.stringify(patch));
      assert.deepEqual(answer.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server rejected our request due to an error in our request',
        reason: 'Invalid',
        details: {},
        code: 422,
      });
    }
    const invalid = await h.call('PATCH', `${ROLES}/p`, [{ op: 'remove', path: '/rules/0/verbs' }], JSON_PATCH);
    assert.equal(invalid.status, 422);
    assert.equal(
      invalid.body.message,
      'ClusterRole.rbac.authorization.k8s.io "p" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
    );
    assert.equal(await h.store.currentRevision(), before);
  });

  it('decodes a JSON patch body as the apiserver does: strictly into its operations first, unless fieldValidation=Ignore', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['', { op: 'add' }, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
      ['?fieldValidation=Ignore', { op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
      ['', [1], 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
      ['?fieldValidation=Ignore', ['add'], 'json: cannot unmarshal string into Go value of type jsonpatch.Operation'],
      [
        '?fieldValidation=Strict',
        [{ op: 'add', path: 1, value: 1 }],
        'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
      ],
    ];
    for (const [query, body, message] of cases) {
      const answer = await h.call('PATCH', `${ROLES}/p${query}`, body, JSON_PATCH);
      assert.equal(answer.status, 400, message);
      assert.equal(answer.body.message, message);
      assert.equal(answer.body.reason, 'BadRequest');
    }
    // A null operation decodes (to an empty Operation) and then does not apply.
    const nullOperation = await h.call('PATCH', `${ROLES}/p`, [null], JSON_PATCH);
    assert.equal(nullOperation.status, 422);
  });

  it('answers a move of a parent into its own child with the 422 of a patch that does not apply', async () => {
    const answer = await h.call('PATCH', `${ROLES}/p`, [{ op: 'move', from: '/metadata', path: '/metadata/labels/x' }], JSON_PATCH);
    assert.equal(answer.status, 422);
    assert.equal(answer.body.reason, 'Invalid');
    assert.equal(answer.body.message, 'the server rejected our request due to an error in our request');
  });

  it('bounds a JSON patch at 10,000 operations, as the apiserver does', async () => {
    const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/metadata/name', value: 'p' }));
    const answer = await h.call('PATCH', `${ROLES}/p`, patch, JSON_PATCH);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  it('strategic merge patch merges finalizers and replaces the atomic rules', async () => {
    const patched = await h.call(
      'PATCH',
      `${ROLES}/p?fieldManager=smp`,
      { metadata: { finalizers: ['example.com/y'] }, rules: [{ verbs: ['watch'], apiGroups: [''], resources: ['pods'] }] },
      SMP,
    );
    assert.equal(patched.status, 200);
    const again = await h.call(
      'PATCH',
      `${ROLES}/p?fieldManager=smp`,
      { metadata: { finalizers: ['example.com/z'], '$deleteFromPrimitiveList/finalizers': ['example.com/y'] } },
      SMP,
    );
    assert.deepEqual(again.body.metadata.finalizers, ['example.com/z']);
    assert.deepEqual(again.body.rules, [{ verbs: ['watch'], apiGroups: [''], resources: ['pods'] }]);
    const missing = await h.call('PATCH', `${ROLES}/nope`, { metadata: {} }, SMP);
    assert.equal(missing.status, 404);
  });

  it('publishes the patch strategies in OpenAPI v3 (the same schemas drive both)', async () => {
    const index = await h.call('GET', '/openapi/v3');
    const path = index.body.paths['apis/rbac.authorization.k8s.io/v1'].serverRelativeURL as string;
    const doc = await h.call('GET', path);
    const meta = doc.body.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
    assert.equal(meta.finalizers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(meta.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(meta.ownerReferences['x-kubernetes-list-type'], 'map');
  });
});
