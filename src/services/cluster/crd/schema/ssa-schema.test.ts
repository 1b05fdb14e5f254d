import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SchemaWalker } from '../../apimachinery/field-set.ts';
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import { serverSideApply } from '../../apimachinery/server-side-apply.ts';
import { OBJECT_META } from '../../resources/meta-schemas.ts';
import type { JSONSchemaProps } from '../types.ts';
import { ssaSchemaSet } from './index.ts';
import { CERTIFICATE_LIKE } from './schemas.fixture.ts';

const ROOT = 'com.example.v1.Widget';
const WIDGET: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            required: ['port'],
            properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } },
          },
        },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        frozen: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { spec: { type: 'object' } },
        },
      },
    },
  },
};

describe('ssaSchemaSet: a custom resource schema as server-side apply sees it', () => {
  it('converts each node to the wire type SSA walks, list and map types honoured', () => {
    const set = ssaSchemaSet(WIDGET, ROOT);
    const root = set[ROOT];
    assert.ok(root !== undefined && 'type' in root && root.type === 'object');
    assert.deepEqual(Object.keys(root.properties).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(root.properties.metadata, { $ref: OBJECT_META });
    assert.ok(set[OBJECT_META] !== undefined, 'the ObjectMeta schema comes along');
    const spec = root.properties.spec;
    assert.ok(spec !== undefined && 'type' in spec && spec.type === 'object');
    const p = spec.properties;
    assert.deepEqual(p.replicas, { type: 'integer', format: 'int32' });
    assert.deepEqual(p.port, { type: 'int-or-string', goType: 'intstr.IntOrString' });
    assert.deepEqual(p.tags, { type: 'array', items: { type: 'string' }, listType: 'set' });
    assert.deepEqual(p.args, { type: 'array', items: { type: 'string' } });
    assert.deepEqual(p.ports, {
      type: 'array',
      items: {
        type: 'object',
        goName: 'Widget',
        required: ['port'],
        properties: { port: { type: 'integer', format: 'int64' }, protocol: { type: 'string' }, name: { type: 'string' } },
      },
      listType: 'map',
      listMapKeys: ['port', 'protocol'],
      listMapKeyDefaults: { protocol: 'TCP' },
    });
    assert.deepEqual(p.selector, { type: 'object', goName: 'Widget', properties: { app: { type: 'string' } }, mapType: 'atomic' });
    assert.deepEqual(p.labels, { type: 'map', values: { type: 'string' } });
    assert.deepEqual(p.frozen, { type: 'any' });
    assert.deepEqual(p.free, { type: 'any' });
    const template = p.template;
    assert.ok(template !== undefined && 'type' in template && template.type === 'object');
    assert.deepEqual(Object.keys(template.properties).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  });

  it('lets server-side apply merge a map list by its keys and own fields per manager', () => {
    const walker = new SchemaWalker(ssaSchemaSet(WIDGET, ROOT));
    const apply = (live: KubeObject | undefined, manager: string, spec: Record<string, unknown>) =>
      serverSideApply({
        live,
        applied: { metadata: { name: 'w' }, spec },
        typeMeta: { apiVersion: 'example.com/v1', kind: 'Widget' },
        manager,
        force: false,
        apiVersion: 'example.com/v1',
        time: '2026-01-01T00:00:00Z',
        root: ROOT,
        walker,
      });
    const first = apply(undefined, 'a', { ports: [{ port: 80, name: 'http' }], tags: ['x'] });
    const live = { ...first.object, metadata: { ...first.object.metadata, managedFields: first.managedFields } } as KubeObject;
    const second = apply(live, 'b', { ports: [{ port: 443, name: 'https' }], tags: ['y'] });
    const spec = (second.object as unknown as { spec: { ports: unknown[]; tags: unknown[] } }).spec;
    assert.deepEqual(spec.ports, [
      { port: 80, name: 'http' },
      { port: 443, name: 'https' },
    ]);
    assert.deepEqual(spec.tags, ['x', 'y']);
    const b = second.managedFields.find((entry) => entry.manager === 'b');
    assert.deepEqual(b?.fieldsV1, {
      'f:spec': {
        'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:tags': { 'v:"y"': {} },
      },
    });
  });

  it('converts a cert-manager-like schema whole (status conditions a map list keyed by type)', () => {
    const set = ssaSchemaSet(CERTIFICATE_LIKE, 'io.cert-manager.v1.Certificate');
    const root = set['io.cert-manager.v1.Certificate'];
    assert.ok(root !== undefined && 'type' in root && root.type === 'object');
    const status = root.properties.status;
    assert.ok(status !== undefined && 'type' in status && status.type === 'object');
    const conditions = status.properties.conditions;
    assert.ok(conditions !== undefined && 'type' in conditions && conditions.type === 'array');
    assert.equal(conditions.listType, 'map');
    assert.deepEqual(conditions.listMapKeys, ['type']);
  });

  it('keeps prototype-named property names as ordinary properties', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"spec":{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}}}',
    ) as JSONSchemaProps;
    const root = ssaSchemaSet(schema, ROOT)[ROOT];
    assert.ok(root !== undefined && 'type' in root && root.type === 'object');
    const spec = root.properties.spec;
    assert.ok(spec !== undefined && 'type' in spec && spec.type === 'object');
    assert.ok(Object.hasOwn(spec.properties, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(spec.properties, '__proto__')?.value, { type: 'string' });
    assert.equal(Object.getPrototypeOf(spec.properties), Object.prototype);
  });
});
