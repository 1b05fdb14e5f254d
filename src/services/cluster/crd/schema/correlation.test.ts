import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../types.ts';
import { correlatedEqual, listCorrelation } from './correlation.ts';
import { validateCustomObject } from './value-validation.ts';

const ports: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name', 'port'],
  items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' }, field: { type: 'string' } } },
};

describe('old and new values correlated as the apiserver correlates them for ratcheting', () => {
  it('correlates map-list items by all their keys, present and scalar, the first old match winning', () => {
    const correlate = listCorrelation(ports, [
      { name: 'a', port: 1, field: 'first' },
      { name: 'a', port: 1, field: 'second' },
      { name: 'b', port: 2 },
    ]);
    assert.deepEqual(correlate({ name: 'a', port: 1 }), { value: { name: 'a', port: 1, field: 'first' } });
    assert.equal(correlate({ name: 'a' }), undefined, 'a missing key does not correlate');
    assert.equal(correlate({ name: 'a', port: '1' }), undefined, 'keys compare with their types');
    assert.equal(correlate({ name: { x: 1 }, port: 2 }), undefined, 'a non-scalar key does not correlate');
    assert.equal(listCorrelation({ type: 'array', items: { type: 'string' } }, ['x'])('x'), undefined, 'atomic list items never correlate');
  });

  it('counts a reordered map list as unchanged, a reordered atomic list as changed', () => {
    const old = [
      { name: 'a', port: 1 },
      { name: 'b', port: 2 },
    ];
    assert.equal(correlatedEqual(ports, [old[1], old[0]], old), true);
    assert.equal(correlatedEqual({ type: 'array', items: { type: 'integer' } }, [2, 1], [1, 2]), false);
    assert.equal(correlatedEqual(ports, [old[1], { name: 'c', port: 3 }], old), false);
  });

  it('counts members the schema does not know as changed (they cannot be correlated)', () => {
    const preserving: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    assert.equal(correlatedEqual(preserving, { a: 1 }, { a: 1 }), false);
    assert.equal(correlatedEqual(preserving, {}, {}), true);
    assert.equal(correlatedEqual({ type: 'object', additionalProperties: { type: 'integer' } }, { a: 1 }, { a: 1 }), true);
    assert.equal(correlatedEqual({ type: 'string' }, null, undefined), true, 'absent and null are both nil');
  });

  it('ratchets scalar members of objects (upstream TestObjectScalarFieldsRatcheting)', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        zero: { type: 'number', minimum: 0, maximum: 0 },
        small: { type: 'number', maximum: 50 },
        medium: { type: 'number', minimum: 50, maximum: 10000 },
        large: { type: 'number', minimum: 10000 },
      },
    };
    const nested: JSONSchemaProps = { type: 'object', properties: { nested: schema } };
    assert.deepEqual(validateCustomObject(schema, { small: 500 }, { small: 500 }), []);
    assert.deepEqual(validateCustomObject(schema, { small: 501 }, { small: 501, medium: 500 }), []);
    assert.equal(validateCustomObject(schema, { small: 500 }, { small: 501 }).length, 1);
    assert.deepEqual(validateCustomObject(nested, { nested: { small: 501 } }, { nested: { small: 501, medium: 500 } }), []);
    assert.equal(validateCustomObject(nested, { nested: { small: 500 } }, { nested: { small: 501 } }).length, 1);
  });
});
