/**
 * The 422s of custom resource writes, built from apiextensions-apiserver 1.32
 * `test/integration/validation_test.go` (TestForProperValidationErrors,
 * TestCustomResourceValidationErrors): TypeMeta validation of the body's kind, schema errors, and
 * the "rules were not checked" cause only where the schema has `x-kubernetes-validations`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'not-the-default';
const noxus = (group: string, version: string) => `/apis/${group}/${version}/namespaces/${NS}/noxus`;

/** validationSchema is upstream's newNoxuValidationCRDs schema; `rule` adds an x-kubernetes-validations entry. */
const validationSchema = (rule: boolean) => ({
  type: 'object',
  required: ['alpha', 'beta'],
  properties: {
    alpha: { description: 'Alpha is an alphanumeric string with underscores', type: 'string', pattern: '^[a-zA-Z0-9_]*$' },
    beta: { description: 'Minimum value of beta is 10', type: 'number', minimum: 10 },
    gamma: {
      description: 'Gamma is restricted to foo, bar and baz',
      type: 'string',
      enum: ['foo', 'bar', 'baz'],
      ...(rule ? { 'x-kubernetes-validations': [{ rule: "self != 'baz'" }] } : {}),
    },
  },
  'x-kubernetes-preserve-unknown-fields': true,
});

const noxuCrd = (group: string, rule: boolean) => ({
  metadata: { name: `noxus.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'noxus', singular: 'nonenglishnoxu', kind: 'WishIHadChosenNoxu', shortNames: ['foo', 'bar', 'abc', 'def'], listKind: 'NoxuItemList' },
    versions: [
      { name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: validationSchema(rule) } },
      { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: validationSchema(rule) } },
    ],
  },
});

/** noxuInstance is upstream's newNoxuValidationInstance. */
const noxuInstance = (group: string, version: string, fields: Record<string, unknown> = { alpha: 'foo_123', beta: 10, gamma: 'bar', delta: 'hello' }) => ({
  apiVersion: `${group}/${version}`,
  kind: 'WishIHadChosenNoxu',
  metadata: { namespace: NS, name: 'foo' },
  ...fields,
});

describe('custom resources: validation errors (upstream validation_test.go cases)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    for (const [group, rule] of [
      ['mygroup.example.com', false],
      ['ruled.example.com', true],
    ] as const) {
      const created = await h.call('POST', CRDS, noxuCrd(group, rule));
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });
  after(async () => h.close());

  it('refuses a body of another version with 400 and of another kind with the TypeMeta 422 (TestForProperValidationErrors)', async () => {
    const group = 'mygroup.example.com';
    const badVersion = await h.call('POST', noxus(group, 'v1beta1'), noxuInstance(group, 'v2'));
    assert.equal(badVersion.status, 400);
    assert.equal(
      badVersion.body.message,
      'the API version in the data (mygroup.example.com/v2) does not match the expected API version (mygroup.example.com/v1beta1)',
    );
    const badKind = await h.call('POST', noxus(group, 'v1beta1'), { ...noxuInstance(group, 'v1beta1'), kind: 'SomethingElse' });
    assert.equal(badKind.status, 422);
    assert.equal(badKind.body.reason, 'Invalid');
    assert.equal(badKind.body.message, 'SomethingElse.mygroup.example.com "foo" is invalid: kind: Invalid value: "SomethingElse": must be WishIHadChosenNoxu');
    assert.deepEqual(badKind.body.details, {
      name: 'foo',
      group,
      kind: 'SomethingElse',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "SomethingElse": must be WishIHadChosenNoxu', field: 'kind' }],
    });
    const created = await h.call('POST', noxus(group, 'v1beta1'), noxuInstance(group, 'v1beta1'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const update = await h.call('PUT', `${noxus(group, 'v1beta1')}/foo`, { ...created.body, kind: 'Other' });
    assert.equal(update.status, 422);
    assert.equal(update.body.message, 'Other.mygroup.example.com "foo" is invalid: kind: Invalid value: "Other": must be WishIHadChosenNoxu');
    assert.equal((await h.call('DELETE', `${noxus(group, 'v1beta1')}/foo`)).status, 200);
  });

  it('reports schema errors with kube-openapi texts, and no unchecked-rules cause for a schema without rules (TestCustomResourceValidationErrors)', async () => {
    const group = 'mygroup.example.com';
    const cases: [string, Record<string, unknown>, string][] = [
      ['bad alpha', { alpha: 'foo_123!', beta: 10, gamma: 'bar' }, 'alpha: Invalid value: "foo_123!": alpha in body should match \'^[a-zA-Z0-9_]*$\''],
      ['bad beta', { alpha: 'foo_123', beta: 5, gamma: 'bar' }, 'beta: Invalid value: 5: beta in body should be greater than or equal to 10'],
      ['bad gamma', { alpha: 'foo_123', beta: 10, gamma: 'qux' }, 'gamma: Unsupported value: "qux": supported values: "foo", "bar", "baz"'],
      ['absent alpha and beta', { gamma: 'bar', delta: 'hello' }, '[alpha: Required value, beta: Required value]'],
    ];
    for (const version of ['v1beta1', 'v1']) {
      for (const [name, fields, expected] of cases) {
        const answer = await h.call('POST', noxus(group, version), noxuInstance(group, version, fields));
        assert.equal(answer.status, 422, name);
        assert.equal(answer.body.message, `WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: ${expected}`, `${name} (${version})`);
      }
    }
  });

  it('adds the unchecked-rules cause after a blocking error only when the schema has x-kubernetes-validations', async () => {
    const group = 'ruled.example.com';
    const blocked = await h.call('POST', noxus(group, 'v1'), noxuInstance(group, 'v1', { gamma: 'qux' }));
    assert.equal(blocked.status, 422);
    assert.equal(
      blocked.body.message,
      'WishIHadChosenNoxu.ruled.example.com "foo" is invalid: [gamma: Unsupported value: "qux": supported values: "foo", "bar", "baz", alpha: Required value, beta: Required value, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    const ruled = await h.call('POST', noxus(group, 'v1'), noxuInstance(group, 'v1', { alpha: 'a', beta: 10, gamma: 'baz' }));
    assert.equal(ruled.body.message, `WishIHadChosenNoxu.ruled.example.com "foo" is invalid: gamma: Invalid value: "string": failed rule: self != 'baz'`);
  });
});
