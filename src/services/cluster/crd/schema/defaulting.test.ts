import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../types.ts';
import { defaultCustomObject, pruneCustomObject, validateCustomObject } from './index.ts';
import { CERTIFICATE_LIKE } from './schemas.fixture.ts';

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', nullable: true, default: 'auto' },
        strategy: { type: 'object', default: { type: 'Rolling' }, properties: { type: { type: 'string' }, maxSurge: { type: 'integer', default: 25 } } },
        ports: {
          type: 'array',
          items: { type: 'object', default: { port: 80 }, properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        },
        limits: { type: 'object', additionalProperties: { type: 'string', default: '1' } },
      },
    },
  },
};

describe('defaultCustomObject: structural defaulting', () => {
  it('fills missing properties, recursing into what it filled in', () => {
    const defaulted = defaultCustomObject(SCHEMA, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' } });
    assert.deepEqual(defaulted, {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a' },
      spec: { replicas: 1, mode: 'auto', strategy: { type: 'Rolling', maxSurge: 25 } },
    });
  });

  it('replaces nulls of non-nullable fields, keeps those of nullable ones, and defaults list items and map values', () => {
    const object = { spec: { replicas: null, mode: null, ports: [{ port: 8080 }, null], limits: { cpu: null, memory: '2Gi' } } };
    const defaulted = defaultCustomObject(SCHEMA, object);
    assert.deepEqual(defaulted.spec, {
      replicas: 1,
      mode: null,
      strategy: { type: 'Rolling', maxSurge: 25 },
      ports: [
        { port: 8080, protocol: 'TCP' },
        { port: 80, protocol: 'TCP' },
      ],
      limits: { cpu: '1', memory: '2Gi' },
    });
    assert.equal(object.spec.replicas, null, 'the input is not changed');
  });

  it('gives each object its own copy of a default', () => {
    const defaulted = defaultCustomObject(SCHEMA, { spec: { ports: [null, null] } }) as { spec: { ports: Record<string, unknown>[] } };
    assert.notEqual(defaulted.spec.ports[0], defaulted.spec.ports[1]);
    assert.notEqual(defaulted.spec.ports[0], (SCHEMA.properties!.spec!.properties!.ports!.items as JSONSchemaProps).default);
  });

  it('makes an old stored object gain a default added to the schema later (read path)', () => {
    const stored = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 3 } };
    const grown: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, paused: { type: 'boolean', default: false } } } },
    };
    assert.deepEqual(defaultCustomObject(grown, stored).spec, { replicas: 3, paused: false });
  });

  it('prunes, defaults and validates a cert-manager-like Certificate the way a write does', () => {
    const withDefaults: JSONSchemaProps = structuredClone(CERTIFICATE_LIKE);
    withDefaults.properties!.spec!.properties!.privateKey!.properties!.rotationPolicy!.default = 'Always';
    withDefaults.properties!.spec!.properties!.privateKey!.default = {};
    const body = {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'web' },
      spec: { secretName: 'web-tls', issuerRef: { name: 'ca' }, unknown: 1 },
    };
    const { object, unknownFields } = pruneCustomObject(withDefaults, body);
    const written = defaultCustomObject(withDefaults, object);
    assert.deepEqual(unknownFields, ['spec.unknown']);
    assert.deepEqual(written.spec, { secretName: 'web-tls', issuerRef: { name: 'ca' }, privateKey: { rotationPolicy: 'Always' } });
    assert.deepEqual(validateCustomObject(withDefaults, written), []);
    // Defaulting twice changes nothing.
    assert.deepEqual(defaultCustomObject(withDefaults, written), written);
  });
});
