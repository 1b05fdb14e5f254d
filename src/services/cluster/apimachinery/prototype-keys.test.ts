import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const GENERIC_422 = 'the server rejected our request due to an error in our request';

describe('prototype-named keys are ordinary keys in every patch type (never a 500, never pollution)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    await h.call('POST', ROLES, { metadata: { name: 'p', labels: { a: '1' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  });
  after(async () => h.close());

  it('answers a JSON patch through a missing __proto__, constructor or prototype path like any missing path', async () => {
    const paths = [
      '/__proto__/polluted',
      '/constructor/prototype/polluted',
      '/metadata/__proto__/polluted',
      '/metadata/constructor/polluted',
      '/prototype/polluted',
      '/toString/polluted',
      '/metadata/labels/__proto__/polluted',
    ];
    for (const path of paths) {
      for (const op of ['add', 'replace', 'remove', 'test']) {
        const answer = await h.call('PATCH', `${ROLES}/p`, [{ op, path, value: 'x' }], JSON_PATCH);
        assert.equal(answer.status, 422, `${op} ${path}`);
        assert.equal(answer.body.message, GENERIC_422);
      }
      const moved = await h.call('PATCH', `${ROLES}/p`, [{ op: 'move', from: path, path: '/metadata/labels/b' }], JSON_PATCH);
      assert.equal(moved.status, 422, `move from ${path}`);
    }
    // A key inherited in JavaScript is missing for the apiserver: removing or replacing it fails.
    const inherited = await h.call('PATCH', `${ROLES}/p`, [{ op: 'remove', path: '/metadata/toString' }], JSON_PATCH);
    assert.equal(inherited.status, 422);
  });

  it('stores __proto__, constructor and prototype as ordinary keys where the kind allows them', async () => {
    const added = await h.call(
      'PATCH',
      `${ROLES}/p`,
      // As JSON text: in a JavaScript literal a `__proto__` member would set the prototype instead.
      `[{"op":"add","path":"/metadata/annotations","value":{"constructor":"c","__proto__":"not a prototype"}},
        {"op":"test","path":"/metadata/annotations/__proto__","value":"not a prototype"},
        {"op":"add","path":"/metadata/annotations/prototype","value":"p"},
        {"op":"remove","path":"/metadata/annotations/__proto__"},
        {"op":"test","path":"/metadata/annotations/constructor","value":"c"}]`,
      JSON_PATCH,
    );
    assert.equal(added.status, 200);
    assert.deepEqual(added.body.metadata.annotations, { constructor: 'c', prototype: 'p' });
    const merged = await h.call('PATCH', `${ROLES}/p`, JSON.stringify({ metadata: { annotations: { constructor: null, toString: 't' } } }), MERGE);
    assert.equal(merged.status, 200);
    assert.deepEqual(merged.body.metadata.annotations, { prototype: 'p', toString: 't' });
    const strategic = await h.call('PATCH', `${ROLES}/p`, JSON.stringify({ metadata: { annotations: { valueOf: 'v', prototype: null } } }), SMP);
    assert.equal(strategic.status, 200);
    assert.deepEqual(strategic.body.metadata.annotations, { toString: 't', valueOf: 'v' });
    const applied = await h.call(
      'PATCH',
      `${ROLES}/p?fieldManager=m`,
      JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'p', annotations: { constructor: 'applied' } } }),
      APPLY,
    );
    assert.equal(applied.status, 200);
    assert.equal(applied.body.metadata.annotations.constructor, 'applied');
    const read = await h.call('GET', `${ROLES}/p`);
    assert.deepEqual(read.body.metadata.annotations, { toString: 't', valueOf: 'v', constructor: 'applied' });
  });

  it('validates a __proto__ key like any other key (the apiserver rejects it as a label or annotation name)', async () => {
    const cases: Array<[unknown, Record<string, string>]> = [
      [[{ op: 'add', path: '/metadata/labels/__proto__', value: 'x' }], JSON_PATCH],
      ['{"metadata":{"labels":{"__proto__":"x"}}}', MERGE],
      ['{"metadata":{"annotations":{"__proto__":"x"}}}', SMP],
      ['{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"p","labels":{"__proto__":"x"}}}', APPLY],
    ];
    for (const [body, headers] of cases) {
      const answer = await h.call('PATCH', `${ROLES}/p?fieldManager=m`, body, headers);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.reason, 'Invalid');
      assert.match(answer.body.details.causes[0].message, /^Invalid value: "__proto__": name part must consist of alphanumeric characters/);
    }
  });

  it('drops a top-level __proto__ or constructor member as an unknown field (Strict: names it)', async () => {
    const body = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
    const merged = await h.call('PATCH', `${ROLES}/p`, body, MERGE);
    assert.equal(merged.status, 200);
    const strict = await h.call('PATCH', `${ROLES}/p?fieldValidation=Strict`, body, MERGE);
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "__proto__", unknown field "constructor"',
    );
    const created = await h.call('POST', `${ROLES}?fieldValidation=Strict`, '{"metadata":{"name":"q","__proto__":{"name":"x"}},"rules":[]}');
    assert.equal(created.status, 400);
    assert.equal(
      created.body.message,
      'ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "metadata.__proto__"',
    );
  });

  it('leaves Object.prototype and the builtins untouched after all the hostile patches above', () => {
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(Object.keys(Object.prototype), []);
    assert.equal(Reflect.get(Object, 'polluted'), undefined);
    assert.equal(Reflect.get(Object.prototype.toString, 'polluted'), undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });
});
