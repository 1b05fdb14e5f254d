import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const V = 'rbac.authorization.k8s.io/v1';
const T = '2025-01-01T00:00:00Z';
const GET_PODS = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
const LIST_PODS = { verbs: ['list'], apiGroups: [''], resources: ['pods'] };

const role = (name: string, extra: Record<string, unknown>) => ({
  apiVersion: V,
  kind: 'ClusterRole',
  metadata: { name, ...((extra['metadata'] as object) ?? {}) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});
const entry = (manager: string, fieldsV1: unknown, operation = 'Apply') => ({ manager, operation, apiVersion: V, time: T, fieldsType: 'FieldsV1', fieldsV1 });

describe('server-side apply: ownership, conflicts, removal, list types (reference §4.3, §4.4)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  const apply = (name: string, manager: string, body: Record<string, unknown>, extra = '') =>
    h.call('PATCH', `${ROLES}/${name}?fieldManager=${manager}${extra}`, role(name, body), APPLY);
  const strip = (object: { metadata: Record<string, unknown> }) => {
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...meta } = object.metadata;
    return { ...object, metadata: meta };
  };

  it('creates a missing object (201) owned by the applier', async () => {
    const created = await apply('own', 'a', { metadata: { labels: { x: '1', y: '2' } }, rules: [GET_PODS] });
    assert.equal(created.status, 201);
    assert.deepEqual(strip(created.body), {
      kind: 'ClusterRole',
      apiVersion: V,
      metadata: {
        name: 'own',
        labels: { x: '1', y: '2' },
        managedFields: [entry('a', { 'f:metadata': { 'f:labels': { 'f:x': {}, 'f:y': {} } }, 'f:rules': {} })],
      },
      rules: [GET_PODS],
    });
  });

  it('removes a field the manager stops applying; a field another applier shares stays', async () => {
    const shared = await apply('own', 'b', { metadata: { labels: { y: '2' } } });
    assert.equal(shared.status, 200);
    const again = await apply('own', 'a', { rules: [GET_PODS] });
    assert.deepEqual(strip(again.body), {
      kind: 'ClusterRole',
      apiVersion: V,
      metadata: {
        name: 'own',
        labels: { y: '2' },
        managedFields: [entry('a', { 'f:rules': {} }), entry('b', { 'f:metadata': { 'f:labels': { 'f:y': {} } } })],
      },
      rules: [GET_PODS],
    });
  });

  it('answers the real 409 for one conflict and for several, and stores nothing', async () => {
    const before = await h.store.currentRevision();
    const one = await apply('own', 'b', { metadata: { labels: { y: '2' } }, rules: [LIST_PODS] });
    assert.equal(one.status, 409);
    assert.deepEqual(one.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "a": .rules',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.rules' }] },
      code: 409,
    });
    const labelled = await h.call('PATCH', `${ROLES}/own?fieldManager=kubectl-label`, { metadata: { labels: { z: '3' } } }, MERGE);
    assert.equal(labelled.status, 200);
    const many = await apply('own', 'c', { metadata: { labels: { y: '9', z: '9' } }, rules: [LIST_PODS] });
    assert.equal(many.status, 409);
    assert.equal(
      many.body.message,
      `Apply failed with 3 conflicts: conflicts with "a":\n- .rules\nconflicts with "b":\n- .metadata.labels.y\nconflicts with "kubectl-label" using ${V}:\n- .metadata.labels.z`,
    );
    assert.deepEqual(many.body.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.rules' },
      { reason: 'FieldManagerConflict', message: 'conflict with "b"', field: '.metadata.labels.y' },
      { reason: 'FieldManagerConflict', message: `conflict with "kubectl-label" using ${V}`, field: '.metadata.labels.z' },
    ]);
    assert.equal(await h.store.currentRevision(), before + 1, 'only the label patch was stored');
  });

  it('force=true takes the conflicting fields; managers left with nothing disappear', async () => {
    const forced = await apply('own', 'c', { metadata: { labels: { y: '9', z: '9' } }, rules: [LIST_PODS] }, '&force=true');
    assert.equal(forced.status, 200);
    assert.deepEqual(strip(forced.body), {
      kind: 'ClusterRole',
      apiVersion: V,
      metadata: {
        name: 'own',
        labels: { y: '9', z: '9' },
        managedFields: [entry('c', { 'f:metadata': { 'f:labels': { 'f:y': {}, 'f:z': {} } }, 'f:rules': {} })],
      },
      rules: [LIST_PODS],
    });
  });

  it('an Update (non-apply write) takes the fields it changes, so the applier then conflicts with it', async () => {
    const edited = await h.call('PATCH', `${ROLES}/own?fieldManager=kubectl-edit`, { rules: [GET_PODS] }, MERGE);
    assert.deepEqual(edited.body.metadata.managedFields, [
      entry('c', { 'f:metadata': { 'f:labels': { 'f:y': {}, 'f:z': {} } } }),
      entry('kubectl-edit', { 'f:rules': {} }, 'Update'),
    ]);
    const conflict = await apply('own', 'c', { metadata: { labels: { y: '9', z: '9' } }, rules: [LIST_PODS] });
    assert.equal(conflict.body.message, `Apply failed with 1 conflict: conflict with "kubectl-edit" using ${V}: .rules`);
  });

  it('set lists (finalizers) are owned per value; keyed lists of atomic items (ownerReferences) per key', async () => {
    await apply('lists', 'a', {
      metadata: { finalizers: ['example.com/a'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u1' }] },
    });
    const second = await apply('lists', 'b', { metadata: { finalizers: ['example.com/b'] } });
    assert.deepEqual(second.body.metadata.finalizers, ['example.com/a', 'example.com/b']);
    assert.deepEqual(second.body.metadata.managedFields, [
      entry('a', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/a"': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } } }),
      entry('b', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } }),
    ]);
    const labelled = await h.call('PATCH', `${ROLES}/lists?fieldManager=labeller`, { metadata: { labels: { l: '1' } } }, MERGE);
    assert.deepEqual(
      labelled.body.metadata.managedFields.slice(0, 2),
      second.body.metadata.managedFields.map((e: object) => ({ ...e })),
      'an Update elsewhere leaves keyed and set ownership alone',
    );
    const owners = await h.call(
      'PATCH',
      `${ROLES}/lists?fieldManager=gc`,
      { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'renamed', uid: 'u1' }] } },
      MERGE,
    );
    assert.deepEqual(
      owners.body.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]),
      [
        ['a', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/a"': {} } } }],
        ['b', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } }],
        ['labeller', { 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } }],
        ['gc', { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } } }],
      ],
    );
    const dropped = await apply('lists', 'a', { metadata: { finalizers: [] } });
    assert.deepEqual(dropped.body.metadata.finalizers, ['example.com/b']);
    assert.deepEqual(
      dropped.body.metadata.ownerReferences,
      [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'renamed', uid: 'u1' }],
      'the reference gc now owns stays',
    );
  });

  it('dryRun answers the applied object and stores nothing', async () => {
    const before = await h.store.currentRevision();
    const dry = await apply('dry', 'a', { rules: [GET_PODS] }, '&dryRun=All');
    assert.equal(dry.status, 201);
    assert.deepEqual(dry.body.rules, [GET_PODS]);
    assert.equal(await h.store.currentRevision(), before);
    assert.equal((await h.call('GET', `${ROLES}/dry`)).status, 404);
  });

  it('validates PatchOptions and the applied body with the real texts', async () => {
    const noManager = await h.call('PATCH', `${ROLES}/own`, role('own', {}), APPLY);
    assert.equal(noManager.status, 422);
    assert.equal(noManager.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const managed = await h.call('PATCH', `${ROLES}/own?fieldManager=a`, role('own', { metadata: { managedFields: [] } }), APPLY);
    assert.equal(managed.status, 400);
    assert.equal(managed.body.message, 'metadata.managedFields must be nil');
  });

  describe('moving from client-side apply to server-side apply (the real last-applied manager and updater)', () => {
    const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
    // What `kubectl apply` (client side) stores: the configuration as Go encodes it, and an Update entry.
    const clientSideApply = async (name: string, labels: Record<string, string>) => {
      const configuration = role(name, { metadata: { labels, annotations: {} }, rules: [GET_PODS] });
      const lastApplied = `${JSON.stringify({ apiVersion: V, kind: 'ClusterRole', metadata: { annotations: {}, labels, name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })}\n`;
      const body = { ...configuration, metadata: { ...configuration.metadata, annotations: { [LAST]: lastApplied } } };
      assert.equal((await h.call('POST', `${ROLES}?fieldManager=kubectl-client-side-apply`, body)).status, 201);
    };

    it('kubectl takes over, without conflicts, the fields the annotation says client-side apply set, and rewrites the annotation', async () => {
      await clientSideApply('moving', { a: '1', b: '1' });
      const moved = await apply('moving', 'kubectl', { metadata: { labels: { a: '2', b: '1' } }, rules: [GET_PODS, LIST_PODS] });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(moved.body.metadata.labels, { a: '2', b: '1' });
      assert.deepEqual(moved.body.rules, [GET_PODS, LIST_PODS]);
      assert.equal(
        moved.body.metadata.annotations[LAST],
        `{"apiVersion":"${V}","kind":"ClusterRole","metadata":{"labels":{"a":"2","b":"1"},"name":"moving"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]},{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]}\n`,
      );
      assert.deepEqual(
        moved.body.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`),
        ['kubectl-client-side-apply/Update', 'kubectl/Apply'],
      );
    });

    it('a field changed since client-side apply set it still conflicts; another manager gets every conflict', async () => {
      await clientSideApply('drifted', { a: '1' });
      assert.equal(
        (
          await h.call('PATCH', `${ROLES}/drifted?fieldManager=kubectl-client-side-apply`, [{ op: 'replace', path: '/rules', value: [LIST_PODS] }], {
            'content-type': 'application/json-patch+json',
          })
        ).status,
        200,
      );
      const drifted = await apply('drifted', 'kubectl', { metadata: { labels: { a: '2' } }, rules: [GET_PODS] });
      assert.equal(drifted.status, 409);
      assert.equal(drifted.body.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using rbac.authorization.k8s.io/v1: .rules');
      const other = await apply('drifted', 'helm', { metadata: { labels: { a: '2' } } });
      assert.equal(other.status, 409);
      assert.equal(
        other.body.message,
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using rbac.authorization.k8s.io/v1: .metadata.labels.a',
      );
    });

    it("owning a map itself (an Update's `.`) and then not applying it keeps the keys still applied", async () => {
      await clientSideApply('container', { a: '1' });
      const migrated = await h.call(
        'PATCH',
        `${ROLES}/container?fieldManager=kubectl`,
        [
          {
            op: 'replace',
            path: '/metadata/managedFields',
            value: [entry('kubectl', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:rules': {} })],
          },
        ],
        { 'content-type': 'application/json-patch+json' },
      );
      assert.equal(migrated.status, 200);
      const reapplied = await apply('container', 'kubectl', { metadata: { labels: { a: '1' } }, rules: [GET_PODS] });
      assert.deepEqual(reapplied.body.metadata.labels, { a: '1' });
      assert.deepEqual(reapplied.body.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:rules': {} });
    });
  });
});
