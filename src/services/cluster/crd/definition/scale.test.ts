import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaleError, scaleOf, withSpecReplicas } from './scale.ts';

const SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

describe('scale subresource paths', () => {
  it('reads replicas and selector, absent values as 0 and ""', () => {
    assert.deepEqual(scaleOf(SCALE, { spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } }), {
      specReplicas: 3,
      statusReplicas: 2,
      selector: 'app=web',
    });
    assert.deepEqual(scaleOf(SCALE, { spec: {} }), { specReplicas: 0, statusReplicas: 0, selector: '' });
  });

  it('words type problems as unstructured accessors do', () => {
    assert.throws(
      () => scaleOf(SCALE, { spec: { replicas: 'three' } }),
      new ScaleError('.spec.replicas accessor error: three is of the type string, expected int64'),
    );
    assert.throws(
      () => scaleOf(SCALE, { spec: { replicas: 1 }, status: { selector: { app: 'web' } } }),
      new ScaleError('.status.selector accessor error: map[app:web] is of the type map[string]interface {}, expected string'),
    );
    assert.throws(
      () => scaleOf(SCALE, { spec: [1] }),
      new ScaleError('.spec.replicas accessor error: [1] is of the type []interface {}, expected map[string]interface{}'),
    );
  });

  it('writes the spec path into a copy, creating maps on the way', () => {
    const original = { metadata: { name: 'a' } };
    const scaled = withSpecReplicas({ ...SCALE, specReplicasPath: '.spec.scaling.replicas' }, original, 5);
    assert.deepEqual(scaled, { metadata: { name: 'a' }, spec: { scaling: { replicas: 5 } } });
    assert.deepEqual(original, { metadata: { name: 'a' } });
    assert.throws(() => withSpecReplicas(SCALE, { spec: 'x' }, 1), new ScaleError('value cannot be set because x is not a map[string]interface{}'));
  });

  it('keeps __proto__ an ordinary key', () => {
    const scaled = withSpecReplicas({ ...SCALE, specReplicasPath: '.__proto__.replicas' }, {}, 2);
    assert.ok(Object.hasOwn(scaled, '__proto__'));
    assert.equal(Object.getPrototypeOf(scaled), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['replicas'], undefined);
  });
});
