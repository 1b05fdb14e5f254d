/**
 * Validation ratcheting of custom resources through the server, built from the cases of
 * apiextensions-apiserver 1.32 `test/integration/ratcheting_test.go` (TestRatchetingFunctionality):
 * one CRD whose schema each case replaces or merge-patches, and server-side applies by one
 * manager that must be accepted (an already-invalid value left unchanged) or refused (a changed
 * value that breaks the schema).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyMergePatch } from '../apimachinery/merge-patch.ts';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/mycrds.mygroup.example.com';
const INSTANCES = '/apis/mygroup.example.com/v1beta1/namespaces/default/mycrds';
const NAME = 'mycrdinstance';

const string = { type: 'string' };
const integer = { type: 'integer' };
const stringMap = { type: 'object', additionalProperties: string };
const numbersMap = { type: 'object', additionalProperties: integer };

type Step =
  | { readonly schema: Record<string, unknown> }
  | { readonly patchSchema: Record<string, unknown> }
  | { readonly apply: Record<string, unknown>; readonly refused?: true; readonly why: string };

describe('custom resources: validation ratcheting (upstream ratcheting_test.go cases)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'mycrds.mygroup.example.com' },
      spec: {
        group: 'mygroup.example.com',
        scope: 'Namespaced',
        names: { plural: 'mycrds', kind: 'MyCoolCRD', listKind: 'MyCoolCRDList' },
        versions: [
          {
            name: 'v1beta1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { content: stringMap, num: numbersMap } } },
          },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  const setSchema = async (schema: unknown) => {
    const crd = await h.call('GET', CRD_PATH);
    crd.body.spec.versions[0].schema.openAPIV3Schema = schema;
    const updated = await h.call('PUT', CRD_PATH, crd.body);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
  };
  const run = async (steps: readonly Step[]) => {
    for (const step of steps) {
      if ('schema' in step) await setSchema(step.schema);
      else if ('patchSchema' in step) {
        const crd = await h.call('GET', CRD_PATH);
        await setSchema(applyMergePatch(crd.body.spec.versions[0].schema.openAPIV3Schema, step.patchSchema));
      } else {
        const body = { apiVersion: 'mygroup.example.com/v1beta1', kind: 'MyCoolCRD', metadata: { name: NAME, namespace: 'default' }, ...step.apply };
        const answer = await h.call('PATCH', `${INSTANCES}/${NAME}?fieldManager=manager`, JSON.stringify(body), {
          'content-type': 'application/apply-patch+yaml',
        });
        if (step.refused === true) assert.equal(answer.status, 422, `${step.why}: ${JSON.stringify(answer.body)}`);
        else assert.ok(answer.status === 200 || answer.status === 201, `${step.why}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }
    assert.equal((await h.call('DELETE', INSTANCES)).status, 200);
  };

  it('Minimum Maximum', async () => {
    await run([
      { schema: { type: 'object', properties: { hasMinimum: integer, hasMaximum: integer, hasMinimumAndMaximum: integer } } },
      { apply: { hasMinimum: 0, hasMaximum: 1000, hasMinimumAndMaximum: 50 }, why: 'Create an object that complies with the schema' },
      {
        patchSchema: {
          properties: {
            hasMinimum: { minimum: 10 },
            hasMaximum: { maximum: 20 },
            hasMinimumAndMaximum: { minimum: 10, maximum: 20 },
            noRestrictions: { type: 'integer' },
          },
        },
      },
      { apply: { noRestrictions: 50 }, why: 'Add new fields that validates successfully without changing old ones' },
      { apply: { hasMinimum: 5 }, refused: true, why: 'Change a single old field to be invalid' },
      { apply: { hasMinimum: 5, hasMaximum: 21 }, refused: true, why: 'Change multiple old fields to be invalid' },
      { apply: { hasMinimum: 11 }, why: 'Change single old field to be valid' },
      { apply: { hasMaximum: 19, hasMinimumAndMaximum: 15 }, why: 'Change multiple old fields to be valid' },
    ]);
  });

  it('Enum', async () => {
    await run([
      { schema: { type: 'object', properties: { enumField: string } } },
      { apply: { enumField: 'okValueNowBadValueLater' }, why: 'Create an instance with a soon-to-be-invalid value' },
      { patchSchema: { properties: { enumField: { enum: ['A', 'B', 'C'] }, otherField: { type: 'string' } } } },
      { apply: { enumField: 'okValueNowBadValueLater' }, why: 'An invalid patch with no changes is a noop' },
      { apply: { enumField: 'okValueNowBadValueLater', otherField: 'anythingGoes' }, why: 'Add a new field, and include old value in our patch' },
      { apply: { enumField: 'D' }, refused: true, why: 'Set enumField to invalid value D' },
      { apply: { enumField: 'A' }, why: 'Set to a valid value' },
      { apply: { enumField: 'okValueNowBadValueLater' }, refused: true, why: 'After setting a valid value, return to the old, accepted value' },
    ]);
  });

  it('AdditionalProperties', async () => {
    await run([
      { schema: { type: 'object', properties: { nums: numbersMap, content: stringMap } } },
      { apply: { nums: { num1: 1, num2: 1000000 }, content: { k1: 'some content', k2: 'other content' } }, why: 'Create an instance' },
      { patchSchema: { properties: { nums: { additionalProperties: { minimum: 1000 } } } } },
      { apply: { nums: { num1: 1, num2: 2000 } }, why: 'updating validating field num2 to another validating value, but rachet invalid field num1' },
      { apply: { nums: { num1: 2, num2: 2000 } }, refused: true, why: 'update field num1 to different invalid value' },
    ]);
  });

  it('MinProperties MaxProperties', async () => {
    await run([
      { schema: { type: 'object', properties: { restricted: stringMap, unrestricted: stringMap } } },
      { apply: { restricted: { key1: 'hi', key2: 'there' } }, why: 'Create instance' },
      { patchSchema: { properties: { restricted: { minProperties: 1, maxProperties: 1 } } } },
      {
        apply: { restricted: { key1: 'hi', key2: 'there' }, unrestricted: { key1: 'yo' } },
        why: "ratchet violating object 'restricted' around changes to unrelated field",
      },
      {
        apply: { restricted: { key1: 'changed', key2: 'there' }, unrestricted: { key1: 'yo' } },
        refused: true,
        why: 'make invalid changes to previously ratcheted invalid field',
      },
      { patchSchema: { properties: { restricted: { minProperties: 2, maxProperties: null } } } },
      { apply: { restricted: { key1: 'hi', key2: 'there', key3: 'buddy' } }, why: 'a new value' },
      { apply: { restricted: { key1: 'hi', key2: null, key3: null } }, refused: true, why: 'violate new validation by removing keys' },
      { patchSchema: { properties: { restricted: { minProperties: null, maxProperties: 1 } } } },
      {
        apply: { restricted: { key1: 'hi', key2: 'there', key3: 'buddy' }, unrestricted: { key1: 'value', key2: 'value' } },
        why: 'modify only the other key, ratcheting maxProperties for field `restricted`',
      },
      {
        apply: { restricted: { key1: 'hi', key2: 'theres', key3: 'buddy' } },
        refused: true,
        why: 'modifying one value in the object with maxProperties restriction, but keeping old fields',
      },
    ]);
  });

  it('MinItems and MaxItems', async () => {
    const array = { type: 'array', items: string };
    await run([
      { schema: { type: 'object', properties: { field: string, array } } },
      { apply: { array: ['value1', 'value2', 'value3'] }, why: 'Create instance' },
      { patchSchema: { properties: { array: { minItems: 10 } } } },
      { apply: { array: ['value1', 'value2', 'value3'], field: 'value' }, why: 'keep invalid field `array` unchanged, add new field with ratcheting' },
      { apply: { array: ['value2', 'value2', 'value3'] }, refused: true, why: 'modify array element without satisfying property' },
      { apply: { array: ['value1', 'value2', 'value3', 'value4'] }, refused: true, why: 'add array element without satisfying proeprty' },
      { apply: { array: ['value1', 'value2', 'value3', '4', '5', '6', '7', '8', '9', '10'] }, why: 'make array valid' },
      { apply: { array: ['value1', 'value2', 'value3'] }, refused: true, why: 'revert to original value' },
    ]);
    await run([
      { schema: { type: 'object', properties: { field: string, array } } },
      { apply: { array: ['value1', 'value2', 'value3'] }, why: 'create instance' },
      { patchSchema: { properties: { array: { maxItems: 1 } } } },
      { apply: { array: ['value1', 'value2', 'value3'], field: 'value' }, why: 'ratchet old value of array through an update to another field' },
      { apply: { array: ['value2', 'value2', 'value3'] }, refused: true, why: 'modify array element without satisfying property' },
      { apply: { array: ['value1', 'value2'] }, refused: true, why: 'remove array element without satisfying proeprty' },
      { apply: { array: ['value1'] }, why: 'change array to valid value that satisfies maxItems' },
      { apply: { array: ['value1', 'value2', 'value3'] }, refused: true, why: 'revert to previous invalid ratcheted value' },
    ]);
  });

  it('MinLength MaxLength, Pattern and Format', async () => {
    await run([
      { schema: { type: 'object', properties: { minField: string, maxField: string, otherField: string } } },
      { apply: { minField: 'value', maxField: 'valueThatsVeryLongSee' }, why: 'create instance' },
      { patchSchema: { properties: { minField: { minLength: 10 }, maxField: { maxLength: 15 } } } },
      {
        apply: { minField: 'value', maxField: 'valueThatsVeryLongSee', otherField: 'otherValue' },
        why: 'add new field `otherField`, ratcheting `minField` and `maxField`',
      },
      {
        apply: { minField: 'valuelength13', maxField: 'valueThatsVeryLongSee', otherField: 'otherValue' },
        why: 'make minField valid, ratcheting old value for maxField',
      },
      { apply: { maxField: 'l2' }, why: 'make maxField shorter' },
      { apply: { maxField: 'valuewithlength17' }, refused: true, why: 'make maxField too long' },
      { apply: { minField: 'value' }, refused: true, why: 'revert minFIeld to previously ratcheted value' },
      { apply: { maxField: 'valueThatsVeryLongSee' }, refused: true, why: 'revert maxField to previously ratcheted value' },
    ]);
    await run([
      { schema: { type: 'object', properties: { field: string } } },
      { apply: { field: 'doesnt abide pattern' }, why: 'create instance' },
      { patchSchema: { properties: { field: { pattern: '^[1-9]+$' }, otherField: { type: 'string' } } } },
      { apply: { field: 'doesnt abide pattern', otherField: 'added' }, why: 'add unrelated field, ratcheting old invalid field' },
      { apply: { field: 'w123', otherField: 'added' }, refused: true, why: 'change field to invalid value' },
      { apply: { field: '123', otherField: 'added' }, why: 'change field to a valid value' },
    ]);
    await run([
      { schema: { type: 'object', properties: { field: string } } },
      { apply: { field: 'doesnt abide any format' }, why: 'create instance' },
      { patchSchema: { properties: { field: { format: 'byte' }, otherField: { type: 'string' } } } },
      { apply: { field: 'doesnt abide any format', otherField: 'value' }, why: 'add unrelated otherField, ratchet invalid old field format' },
      { apply: { field: 'asd' }, refused: true, why: 'change field to an invalid string' },
      { apply: { field: 'dGhpcyBpcyBwYXNzd29yZA==' }, why: 'change field to a valid byte string' },
      { patchSchema: { properties: { field: { format: 'date-time' } } } },
      { apply: { field: 'dGhpcyBpcyBwYXNzd29yZA==', otherField: 'value2' }, why: "change otherField, ratchet `field`'s invalid byte format" },
      { apply: { field: '2018-11-13T20:20:39+00:00', otherField: 'value2' }, why: 'change `field` to a valid value' },
      { apply: { field: 'dGhpcyBpcyBwYXNzd29yZA==', otherField: 'value2' }, refused: true, why: 'revert `field` to previously ratcheted value' },
      { apply: { field: 'doesnt abide any format' }, refused: true, why: 'revert `field` to its initial value from creation' },
    ]);
  });

  it('Map Type List Reordering Grandfathers Invalid Key', async () => {
    const item = (name: string, port: number, field = 'value') => ({ name, port, field });
    await run([
      {
        schema: {
          type: 'object',
          properties: {
            field: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name', 'port'],
              items: { type: 'object', required: ['name', 'port'], properties: { name: string, port: integer, field: string } },
            },
          },
        },
      },
      { apply: { field: [item('nginx', 443), item('etcd', 2379), item('kube-apiserver', 6443)] }, why: 'create instance with three soon-to-be-invalid keys' },
      { patchSchema: { properties: { field: { maxItems: 2 } } } },
      {
        apply: { field: [item('kube-apiserver', 6443), item('nginx', 443), item('etcd', 2379)] },
        why: 'reorder invalid objects which have too many properties, but do not modify them or change keys',
      },
      {
        apply: { field: [item('kube-apiserver', 6443), item('nginx', 443), item('etcd', 2379), item('dev', 8080)] },
        refused: true,
        why: 'attempt to change one of the fields of the items which exceed maxItems',
      },
      { patchSchema: { properties: { field: { maxItems: null, items: { properties: { port: { multipleOf: 2 } } } } } } },
      { apply: { field: [item('nginx', 443), item('etcd', 2379), item('kube-apiserver', 6443)] }, why: 'reorder fields without changing anything' },
      {
        apply: {
          field: [
            item('nginx', 443),
            item('etcd', 2379),
            item('kube-apiserver', 6443, 'this is a changed value for an an invalid but grandfathered key'),
            item('dev', 8080),
          ],
        },
        why: 'use "invalid" keys despite changing order and changing sibling fields to the key',
      },
    ]);
  });

  it('ArrayItems do not correlate by index', async () => {
    await run([
      { schema: { type: 'object', properties: { values: { type: 'array', items: stringMap }, otherField: string } } },
      {
        apply: {
          values: [
            { name: '1', key: 'value' },
            { name: '2', key: 'value' },
          ],
        },
        why: 'create instance with length 5 values',
      },
      { patchSchema: { properties: { values: { items: { additionalProperties: { minLength: 6 } } } } } },
      {
        apply: {
          values: [
            { name: '1', key: 'value' },
            { name: '2', key: 'bad' },
          ],
        },
        refused: true,
        why: 'change value to one that exceeds minLength',
      },
      {
        apply: {
          values: [
            { name: '1', key: 'value' },
            { name: '2', key: 'value' },
          ],
          otherField: 'hello world',
        },
        why: 'add new fields without touching the map',
      },
      {
        apply: {
          values: [
            { name: '1', key: 'value' },
            { name: '2', key: 'value', key2: 'valid value' },
          ],
        },
        refused: true,
        why: 'add new, valid fields to elements of the array, failing to ratchet unchanged old fields within the array elements by correlating by index due to atomic list',
      },
      {
        apply: {
          values: [
            { name: '2', key: 'value', key2: 'valid value' },
            { name: '1', key: 'value' },
          ],
        },
        refused: true,
        why: 'reorder the array, preventing index correlation',
      },
    ]);
  });

  it('CEL_transition_rules_should_not_ratchet', async () => {
    await run([
      { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      { apply: { myStringField: 'myStringValue', myOtherField: 'myOtherField' }, why: 'create instance with strings that do not start with k8s' },
      {
        schema: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { myStringField: { type: 'string', 'x-kubernetes-validations': [{ rule: "oldSelf != 'myStringValue' || self == 'validstring'" }] } },
        },
      },
      {
        apply: { myOtherField: 'myNewOtherField', myStringField: 'myStringValue' },
        refused: true,
        why: 'try to change one field to valid value, but unchanged field fails to be ratcheted by transition rule',
      },
      { apply: { myStringField: 'validstring', myOtherField: 'myNewOtherField' }, why: 'change both fields to valid values' },
    ]);
  });

  it('refuses a changed invalid value with the schema text, and keeps the stored object', async () => {
    await setSchema({ type: 'object', properties: { enumField: string } });
    const body = { apiVersion: 'mygroup.example.com/v1beta1', kind: 'MyCoolCRD', metadata: { name: NAME }, enumField: 'old' };
    assert.equal((await h.call('POST', INSTANCES, body)).status, 201);
    await setSchema({ type: 'object', properties: { enumField: { type: 'string', enum: ['A', 'B'] } } });
    const unchanged = await h.call(
      'PATCH',
      `${INSTANCES}/${NAME}`,
      { metadata: { labels: { touched: 'yes' } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(unchanged.status, 200, JSON.stringify(unchanged.body));
    const changed = await h.call('PATCH', `${INSTANCES}/${NAME}`, { enumField: 'older' }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      'MyCoolCRD.mygroup.example.com "mycrdinstance" is invalid: enumField: Unsupported value: "older": supported values: "A", "B"',
    );
    assert.equal((await h.call('GET', `${INSTANCES}/${NAME}`)).body.enumField, 'old');
  });
});
