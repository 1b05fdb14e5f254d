import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

describe('ClusterRole validation (reference §5.1)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  async function rejected(body: unknown, message: string, causes: { reason: string; message: string; field: string }[]): Promise<void> {
    const before = await h.store.currentRevision();
    const response = await h.call('POST', ROLES, body);
    assert.equal(response.status, 422);
    assert.equal(response.body.message, message);
    assert.equal(response.body.reason, 'Invalid');
    assert.deepEqual(response.body.details.causes, causes);
    assert.equal(await h.store.currentRevision(), before, 'nothing is stored');
  }

  it('requires verbs', async () => {
    await rejected(
      { metadata: { name: 'a' }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
      'ClusterRole.rbac.authorization.k8s.io "a" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
      [{ reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' }],
    );
  });

  it('forbids mixing resources and non-resource URLs', async () => {
    await rejected(
      { metadata: { name: 'b' }, rules: [{ verbs: ['get'], apiGroups: [''], nonResourceURLs: ['/healthz', '/metrics'] }] },
      'ClusterRole.rbac.authorization.k8s.io "b" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz", "/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
      [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: []string{"/healthz", "/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
          field: 'rules[0].nonResourceURLs',
        },
      ],
    );
  });

  it('requires api groups and resources for resource rules, and one resource with resourceNames', async () => {
    await rejected(
      { metadata: { name: 'c' }, rules: [{ verbs: ['get'] }, { verbs: ['get'], apiGroups: [''], resources: ['a', 'b'], resourceNames: ['x'] }] },
      'ClusterRole.rbac.authorization.k8s.io "c" is invalid: [rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource, rules[1].resourceNames: Required value: resource names cannot apply to multiple resources]',
      [
        { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one api group', field: 'rules[0].apiGroups' },
        { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one resource', field: 'rules[0].resources' },
        { reason: 'FieldValueRequired', message: 'Required value: resource names cannot apply to multiple resources', field: 'rules[1].resourceNames' },
      ],
    );
  });

  it('accepts path-segment names such as system:aggregate-to-admin, non-resource rules, empty rules and unvalidated aggregation rules', async () => {
    for (const body of [
      { metadata: { name: 'system:aggregate-to-Admin' }, rules: [] },
      { metadata: { name: 'urls' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }] },
      { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'not a label!': 'x' } }] } },
    ]) {
      const response = await h.call('POST', ROLES, body);
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.equal(response.body.metadata.namespace, undefined);
    }
  });

  it('rejects names that are not path segments', async () => {
    await rejected(
      { metadata: { name: 'a%b' }, rules: [] },
      'ClusterRole.rbac.authorization.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain \'%\'',
      [{ reason: 'FieldValueInvalid', message: 'Invalid value: "a%b": may not contain \'%\'', field: 'metadata.name' }],
    );
    await rejected(
      { metadata: { name: '..' }, rules: [] },
      'ClusterRole.rbac.authorization.k8s.io ".." is invalid: metadata.name: Invalid value: "..": may not be \'..\'',
      [{ reason: 'FieldValueInvalid', message: 'Invalid value: "..": may not be \'..\'', field: 'metadata.name' }],
    );
  });

  it('requires a name or generateName, and checks labels and annotations', async () => {
    await rejected({ rules: [] }, 'ClusterRole.rbac.authorization.k8s.io "" is invalid: metadata.name: Required value: name or generateName is required', [
      { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
    ]);
    await rejected(
      { metadata: { name: 'l', labels: { 'bad key!': 'ok', good: '-bad-' } }, rules: [] },
      "ClusterRole.rbac.authorization.k8s.io \"l\" is invalid: [metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.labels: Invalid value: \"-bad-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]",
      [
        {
          reason: 'FieldValueInvalid',
          message:
            "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
          field: 'metadata.labels',
        },
        {
          reason: 'FieldValueInvalid',
          message:
            "Invalid value: \"-bad-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
          field: 'metadata.labels',
        },
      ],
    );
    await rejected(
      { metadata: { name: 'big', annotations: { a: 'x'.repeat(256 * 1024) } }, rules: [] },
      'ClusterRole.rbac.authorization.k8s.io "big" is invalid: metadata.annotations: Too long: must have at most 262144 bytes',
      [{ reason: 'FieldValueTooLong', message: 'Too long: must have at most 262144 bytes', field: 'metadata.annotations' }],
    );
  });

  it('validates updates the same way and keeps name and uid immutable', async () => {
    const created = await h.call('POST', ROLES, { metadata: { name: 'upd' }, rules: [] });
    const before = await h.store.currentRevision();
    const bad = await h.call('PUT', `${ROLES}/upd`, { metadata: { name: 'upd', uid: 'other' }, rules: [{ verbs: [], apiGroups: ['*'], resources: ['*'] }] });
    assert.equal(bad.status, 422);
    // rest.BeforeUpdate's common metadata checks come before ValidateClusterRoleUpdate's (whose own copy of the uid error the message drops as a duplicate).
    assert.equal(
      bad.body.message,
      'ClusterRole.rbac.authorization.k8s.io "upd" is invalid: [metadata.uid: Invalid value: "other": field is immutable, rules[0].verbs: Required value: verbs must contain at least one value]',
    );
    assert.equal(await h.store.currentRevision(), before);
    const renamed = await h.call('PUT', `${ROLES}/upd`, { metadata: { name: 'other' }, rules: [] });
    assert.equal(renamed.status, 400);
    assert.equal(renamed.body.message, 'the name of the object (other) does not match the name on the URL (upd)');
    assert.equal(created.status, 201);
  });
});
