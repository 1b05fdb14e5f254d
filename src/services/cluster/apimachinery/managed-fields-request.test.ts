import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { decodeManagedFields, startingManagedFields } from './managed-fields.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const entry = (manager: string, fieldsV1: unknown = { 'f:rules': {} }): Record<string, unknown> => ({
  manager,
  operation: 'Update',
  apiVersion: 'rbac.authorization.k8s.io/v1',
  fieldsType: 'FieldsV1',
  fieldsV1,
});
// Lists the apiserver's DecodeManagedFields rejects: it then keeps the stored entries (decodeLiveOrNew).
const UNDECODABLE: ReadonlyArray<readonly [string, unknown[]]> = [
  ['fieldsV1 a number', [{ fieldsV1: 5 }]],
  ['two empty entries', [{}, {}]],
  ['an operation that is neither Apply nor Update', [{ ...entry('x'), operation: 'Delete' }]],
  ['an empty apiVersion', [{ ...entry('x'), apiVersion: '' }]],
  ['a missing fieldsType', [{ ...entry('x'), fieldsType: undefined }]],
  ['fieldsV1 an array', [entry('x', [])]],
  ['a k: key that is not a JSON object', [entry('x', { 'f:rules': { 'k:[1]': {} } })]],
  ['an i: key that is not an integer', [entry('x', { 'i:one': {} })]],
  ['a nested value that is not an object', [entry('x', { 'f:rules': 1 })]],
];

describe('managedFields in a request body, as the apiserver field manager reads them', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it('creates with [null], [{}], [] or entries that do not decode, recording only the creator', async () => {
    const shapes: unknown[] = [[null], [{}], [], ...UNDECODABLE.map(([, list]) => list)];
    for (const [index, managedFields] of shapes.entries()) {
      const answer = await h.call('POST', ROLES, { metadata: { name: `create-${index}`, managedFields }, rules: [] });
      assert.equal(answer.status, 201, JSON.stringify(managedFields));
      assert.deepEqual(
        answer.body.metadata.managedFields.map((e: Record<string, unknown>) => e['manager']),
        ['lightMyRequest'],
        JSON.stringify(managedFields),
      );
    }
  });

  it('keeps the stored entries when a PUT or merge patch sends entries that do not decode', async () => {
    const created = await h.call('POST', ROLES, { metadata: { name: 'keep' }, rules: [] });
    const stored = created.body.metadata.managedFields;
    for (const [what, managedFields] of UNDECODABLE) {
      const put = await h.call('PUT', `${ROLES}/keep`, { metadata: { name: 'keep', managedFields }, rules: [] });
      assert.equal(put.status, 200, what);
      assert.deepEqual(put.body.metadata.managedFields, stored, what);
      const patched = await h.call('PATCH', `${ROLES}/keep`, { metadata: { managedFields } }, MERGE);
      assert.equal(patched.status, 200, what);
      assert.deepEqual(patched.body.metadata.managedFields, stored, what);
    }
  });

  it('resets the entries on [{}] or [null], leaving none when nothing else changed', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'reset' }, rules: [] });
    const patched = await h.call('PATCH', `${ROLES}/reset`, { metadata: { managedFields: [{}] } }, MERGE);
    assert.equal(patched.status, 200);
    assert.equal(patched.body.metadata.managedFields, undefined);
    const put = await h.call('PUT', `${ROLES}/reset`, {
      metadata: { name: 'reset', managedFields: [null] },
      rules: [{ verbs: ['get'], resources: ['pods'], apiGroups: [''] }],
    });
    assert.equal(put.status, 200);
    assert.deepEqual(
      put.body.metadata.managedFields.map((e: Record<string, unknown>) => e['manager']),
      ['lightMyRequest'],
    );
  });

  it('replaces the stored entries with request entries that decode', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'replace' }, rules: [] });
    const put = await h.call('PUT', `${ROLES}/replace`, { metadata: { name: 'replace', managedFields: [entry('someone')] }, rules: [] });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.metadata.managedFields, [entry('someone')]);
  });

  it('answers wrong JSON types inside managedFields with the Go decoder 400', async () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [1, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
      [[1], 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.managedFields of type v1.ManagedFieldsEntry'],
      [
        [{ operation: {} }],
        'json: cannot unmarshal object into Go struct field ManagedFieldsEntry.metadata.managedFields.operation of type v1.ManagedFieldsOperationType',
      ],
      [[{ fieldsType: 1 }], 'json: cannot unmarshal number into Go struct field ManagedFieldsEntry.metadata.managedFields.fieldsType of type string'],
    ];
    for (const [managedFields, message] of cases) {
      const answer = await h.call('POST', ROLES, { metadata: { name: 'typed', managedFields }, rules: [] });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.reason, 'BadRequest');
      assert.equal(answer.body.message, `ClusterRole in version "v1" cannot be handled as a ClusterRole: ${message}`);
    }
  });
});

describe('decodeManagedFields', () => {
  it('reads fieldsV1 as structured-merge-diff does: "." marks membership, unknown key kinds are dropped, null is empty', () => {
    assert.deepEqual(decodeManagedFields([entry('m', { '.': 7, 'x:odd': 1, 'f:a': null, 'v:"s"': {}, 'k:{"uid":"u"}': { '.': {} }, 'i:3': {} })]), [
      entry('m', { '.': {}, 'f:a': {}, 'v:"s"': {}, 'k:{"uid":"u"}': { '.': {} }, 'i:3': {} }),
    ]);
    assert.deepEqual(decodeManagedFields([{ ...entry('m'), fieldsV1: undefined }]), [entry('m', {})]);
  });

  it('keeps the last of entries naming the same manager', () => {
    assert.deepEqual(decodeManagedFields([entry('m', { 'f:a': {} }), entry('m', { 'f:b': {} })]), [entry('m', { 'f:b': {} })]);
  });

  it('starts from the stored entries when the request has none', () => {
    const live = [entry('m')] as never;
    assert.deepEqual(startingManagedFields(undefined, live), [entry('m')]);
    assert.deepEqual(startingManagedFields([], live), []);
  });
});
