import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../types.ts';
import { pruneCustomObject } from './index.ts';
import { CERTIFICATE_LIKE, FOO } from './schemas.fixture.ts';

describe('pruneCustomObject: unknown fields dropped and named as the apiserver names them', () => {
  it('keeps apiVersion, kind and metadata of the root and drops what the Foo schema does not know', () => {
    const object = {
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name: 'example-foo', labels: { a: 'b' }, whatever: 1 },
      spec: { deploymentName: 'example-foo', replicas: 1, extra: { deep: true } },
      status: { availableReplicas: 1, phase: 'Running' },
      top: 'level',
    };
    const { object: pruned, unknownFields } = pruneCustomObject(FOO, object);
    assert.deepEqual(pruned, {
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name: 'example-foo', labels: { a: 'b' }, whatever: 1 },
      spec: { deploymentName: 'example-foo', replicas: 1 },
      status: { availableReplicas: 1 },
    });
    assert.deepEqual(unknownFields, ['spec.extra', 'status.phase', 'top']);
    // The input is left as it was.
    assert.deepEqual(object.spec.extra, { deep: true });
    assert.notEqual(pruned.metadata, object.metadata);
  });

  it('names list items by index and sorts the paths as Go sorts strings', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } } } },
    };
    const { object, unknownFields } = pruneCustomObject(schema, { spec: { items: [{ name: 'a', bar: 1 }, { name: 'b' }, { Zed: 2, bar: 3 }] }, B: 1, a: 1 });
    assert.deepEqual(object, { spec: { items: [{ name: 'a' }, { name: 'b' }, {}] } });
    assert.deepEqual(unknownFields, ['B', 'a', 'spec.items[0].bar', 'spec.items[2].Zed', 'spec.items[2].bar']);
  });

  it('keeps x-kubernetes-preserve-unknown-fields subtrees but still prunes their specified children', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    };
    const { object, unknownFields } = pruneCustomObject(schema, { spec: { free: { any: ['thing'] }, known: { a: 'x', b: 'y' } } });
    assert.deepEqual(object, { spec: { free: { any: ['thing'] }, known: { a: 'x' } } });
    assert.deepEqual(unknownFields, ['spec.known.b']);
  });

  it('prunes map values by additionalProperties and keeps embedded resources’ apiVersion, kind and metadata', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            selectors: { type: 'object', additionalProperties: { type: 'object', properties: { key: { type: 'string' } } } },
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
            },
          },
        },
      },
    };
    const { object, unknownFields } = pruneCustomObject(schema, {
      spec: {
        selectors: { one: { key: 'a', value: 'b' } },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 'x' }, spec: { image: 'nginx', cpu: 1 }, other: 1 },
      },
    });
    assert.deepEqual(object, {
      spec: { selectors: { one: { key: 'a' } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'nginx' } } },
    });
    assert.deepEqual(unknownFields, ['spec.selectors.one.value', 'spec.template.other', 'spec.template.spec.cpu', 'spec.template.metadata.bogus']);
  });

  it('drops nulls of fields that are neither nullable nor defaulted, silently', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string' },
            b: { type: 'string', nullable: true },
            c: { type: 'string', default: 'x' },
            list: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    };
    const { object, unknownFields } = pruneCustomObject(schema, { spec: { a: null, b: null, c: null, list: ['x', null] } });
    assert.deepEqual(object, { spec: { b: null, c: null, list: ['x', null] } });
    assert.deepEqual(unknownFields, []);
  });

  it('drops everything below a scalar-typed field given an object', () => {
    const { object, unknownFields } = pruneCustomObject(FOO, { spec: { deploymentName: { nested: 1 } } });
    assert.deepEqual(object, { spec: { deploymentName: {} } });
    assert.deepEqual(unknownFields, ['spec.deploymentName.nested']);
  });

  it('round-trips a cert-manager-like Certificate, dropping only the unknown keys', () => {
    const certificate = {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        secretName: 'web-tls',
        issuerRef: { name: 'ca', kind: 'ClusterIssuer', color: 'blue' },
        dnsNames: ['a.example.com', 'b.example.com'],
        privateKey: { algorithm: 'ECDSA', size: 256, curve: 'P-256' },
        secretTemplate: { labels: { app: 'web' } },
      },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Issued', extra: 'x' }], notAfter: '2026-01-01T00:00:00Z' },
    };
    const { object, unknownFields } = pruneCustomObject(CERTIFICATE_LIKE, certificate);
    assert.deepEqual(unknownFields, ['spec.issuerRef.color', 'spec.privateKey.curve', 'status.conditions[0].extra']);
    assert.deepEqual(pruneCustomObject(CERTIFICATE_LIKE, object), { object, unknownFields: [] });
  });

  it('treats prototype-named keys as ordinary keys', () => {
    const body = JSON.parse('{"spec":{"__proto__":{"polluted":true},"constructor":1,"deploymentName":"x"},"__proto__":{"x":1}}') as Record<string, unknown>;
    const { object, unknownFields } = pruneCustomObject(FOO, body);
    assert.deepEqual(unknownFields, ['__proto__', 'spec.__proto__', 'spec.constructor']);
    assert.equal(Object.getPrototypeOf(object), Object.prototype);
    assert.equal(Object.getPrototypeOf(object.spec), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const preserving: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
    const kept = pruneCustomObject(preserving, body).object.spec as Record<string, unknown>;
    assert.ok(Object.hasOwn(kept, '__proto__'));
    // biome-ignore lint/suspicious/noProto: the test is about a key named __proto__ kept as an own, plain key
    assert.deepEqual(kept.__proto__, { polluted: true });
    assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  });
});
