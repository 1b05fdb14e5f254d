import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { decodeProtobufBody } from './protobuf-body.ts';

/** envelope wraps an object's bytes as kubectl does: the `k8s\0` magic and a runtime.Unknown. */
function envelope(apiVersion: string, kind: string, object: Uint8Array): Uint8Array {
  const unknown = new BinaryWriter();
  unknown.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(apiVersion).tag(2, WireType.LengthDelimited).string(kind).join();
  unknown.tag(2, WireType.LengthDelimited).bytes(object);
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...unknown.finish()]);
}

const text = (writer: BinaryWriter, field: number, value: string): BinaryWriter => writer.tag(field, WireType.LengthDelimited).string(value);

describe('protobuf bodies of the namespaced RBAC kinds', () => {
  it('decodes a RoleBinding and a Role as kubectl create sends them', () => {
    const binding = new BinaryWriter();
    text(binding.tag(1, WireType.LengthDelimited).fork(), 1, 'alice-reads').join();
    text(text(text(binding.tag(2, WireType.LengthDelimited).fork(), 1, 'ServiceAccount'), 3, 'robot'), 4, 'team-a').join();
    text(text(text(binding.tag(3, WireType.LengthDelimited).fork(), 1, 'rbac.authorization.k8s.io'), 2, 'Role'), 3, 'reader').join();
    assert.deepEqual(decodeProtobufBody(envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', binding.finish())), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice-reads' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'team-a' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
    const role = new BinaryWriter();
    text(role.tag(1, WireType.LengthDelimited).fork(), 1, 'reader').join();
    text(text(text(text(role.tag(2, WireType.LengthDelimited).fork(), 1, 'get'), 1, 'list'), 2, ''), 3, 'events').join();
    assert.deepEqual(decodeProtobufBody(envelope('rbac.authorization.k8s.io/v1', 'Role', role.finish())).rules, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] },
    ]);
  });

  it('decodes a SubjectAccessReview and DeleteOptions in any group-version (kubectl auth reconcile sends them as rbac’s)', () => {
    const review = new BinaryWriter();
    const spec = review.tag(2, WireType.LengthDelimited).fork();
    text(text(text(spec.tag(1, WireType.LengthDelimited).fork(), 1, 'team-a'), 2, 'list'), 5, 'events').join();
    text(text(text(spec, 3, 'alice'), 4, 'devs'), 4, 'system:authenticated').join();
    assert.deepEqual(decodeProtobufBody(envelope('authorization.k8s.io/v1', 'SubjectAccessReview', review.finish())).spec, {
      resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'events' },
      user: 'alice',
      groups: ['devs', 'system:authenticated'],
    });
    const options = new BinaryWriter();
    text(options.tag(1, WireType.Varint).int64(0), 4, 'Background');
    assert.deepEqual(decodeProtobufBody(envelope('rbac.authorization.k8s.io/v1', 'DeleteOptions', options.finish())), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Background',
    });
  });
});
