/**
 * Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which kubectl's
 * typed clients send (e.g. `kubectl create namespace`): the `k8s\0` magic, a
 * `runtime.Unknown` envelope, and the object in the upstream `generated.proto` field numbering.
 * Decoded to the JSON form, then handled like any JSON body. The wire reading is
 * @bufbuild/protobuf's; the field tables below are the API's message layouts.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/** MessageLayout maps field numbers to JSON names and kinds. */
type Field =
  | { readonly name: string; readonly kind: 'string' | 'int64' | 'int32' | 'bool' | 'time' }
  | { readonly name: string; readonly kind: 'message'; readonly layout: MessageLayout }
  | { readonly name: string; readonly kind: 'map' };
type MessageLayout = Readonly<Record<number, Field & { readonly repeated?: boolean }>>;

const LABEL_SELECTOR: MessageLayout = {
  1: { name: 'matchLabels', kind: 'map' },
  2: {
    name: 'matchExpressions',
    kind: 'message',
    repeated: true,
    layout: { 1: { name: 'key', kind: 'string' }, 2: { name: 'operator', kind: 'string' }, 3: { name: 'values', kind: 'string', repeated: true } },
  },
};

const OBJECT_META: MessageLayout = {
  1: { name: 'name', kind: 'string' },
  2: { name: 'generateName', kind: 'string' },
  3: { name: 'namespace', kind: 'string' },
  5: { name: 'uid', kind: 'string' },
  6: { name: 'resourceVersion', kind: 'string' },
  7: { name: 'generation', kind: 'int64' },
  8: { name: 'creationTimestamp', kind: 'time' },
  9: { name: 'deletionTimestamp', kind: 'time' },
  10: { name: 'deletionGracePeriodSeconds', kind: 'int64' },
  11: { name: 'labels', kind: 'map' },
  12: { name: 'annotations', kind: 'map' },
  13: {
    name: 'ownerReferences',
    kind: 'message',
    repeated: true,
    layout: {
      1: { name: 'kind', kind: 'string' },
      3: { name: 'name', kind: 'string' },
      4: { name: 'uid', kind: 'string' },
      5: { name: 'apiVersion', kind: 'string' },
      6: { name: 'controller', kind: 'bool' },
      7: { name: 'blockOwnerDeletion', kind: 'bool' },
    },
  },
  14: { name: 'finalizers', kind: 'string', repeated: true },
};

/** ROLE is a Role's layout (a ClusterRole adds its aggregationRule). */
const ROLE: MessageLayout = {
  1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
  2: {
    name: 'rules',
    kind: 'message',
    repeated: true,
    layout: {
      1: { name: 'verbs', kind: 'string', repeated: true },
      2: { name: 'apiGroups', kind: 'string', repeated: true },
      3: { name: 'resources', kind: 'string', repeated: true },
      4: { name: 'resourceNames', kind: 'string', repeated: true },
      5: { name: 'nonResourceURLs', kind: 'string', repeated: true },
    },
  },
};

/** BINDING is the layout of RoleBinding and ClusterRoleBinding. */
const BINDING: MessageLayout = {
  1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
  2: {
    name: 'subjects',
    kind: 'message',
    repeated: true,
    layout: {
      1: { name: 'kind', kind: 'string' },
      2: { name: 'apiGroup', kind: 'string' },
      3: { name: 'name', kind: 'string' },
      4: { name: 'namespace', kind: 'string' },
    },
  },
  3: {
    name: 'roleRef',
    kind: 'message',
    layout: { 1: { name: 'apiGroup', kind: 'string' }, 2: { name: 'kind', kind: 'string' }, 3: { name: 'name', kind: 'string' } },
  },
};

/** ACCESS_ATTRIBUTES are the resource or non-resource attributes of an access review's spec (fields 1 and 2). */
const ACCESS_ATTRIBUTES: MessageLayout = {
  1: {
    name: 'resourceAttributes',
    kind: 'message',
    layout: {
      1: { name: 'namespace', kind: 'string' },
      2: { name: 'verb', kind: 'string' },
      3: { name: 'group', kind: 'string' },
      4: { name: 'version', kind: 'string' },
      5: { name: 'resource', kind: 'string' },
      6: { name: 'subresource', kind: 'string' },
      7: { name: 'name', kind: 'string' },
    },
  },
  2: { name: 'nonResourceAttributes', kind: 'message', layout: { 1: { name: 'path', kind: 'string' }, 2: { name: 'verb', kind: 'string' } } },
};

/** SUBJECT_ACCESS_REVIEW is the layout of SubjectAccessReview and LocalSubjectAccessReview: the attributes and whom they are asked for. */
const SUBJECT_ACCESS_REVIEW: MessageLayout = {
  1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
  2: {
    name: 'spec',
    kind: 'message',
    layout: {
      ...ACCESS_ATTRIBUTES,
      3: { name: 'user', kind: 'string' },
      4: { name: 'groups', kind: 'string', repeated: true },
      6: { name: 'uid', kind: 'string' },
    },
  },
};

/** DELETE_OPTIONS is the layout of a DeleteOptions body, in whichever group-version it is sent. */
const DELETE_OPTIONS: MessageLayout = {
  1: { name: 'gracePeriodSeconds', kind: 'int64' },
  2: { name: 'preconditions', kind: 'message', layout: { 1: { name: 'uid', kind: 'string' }, 2: { name: 'resourceVersion', kind: 'string' } } },
  3: { name: 'orphanDependents', kind: 'bool' },
  4: { name: 'propagationPolicy', kind: 'string' },
  5: { name: 'dryRun', kind: 'string', repeated: true },
};

/** LAYOUTS are the kinds whose protobuf bodies are understood, by `apiVersion/kind`. */
const LAYOUTS: Readonly<Record<string, MessageLayout>> = {
  'v1/Namespace': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: { name: 'spec', kind: 'message', layout: { 1: { name: 'finalizers', kind: 'string', repeated: true } } },
    3: { name: 'status', kind: 'message', layout: { 1: { name: 'phase', kind: 'string' } } },
  },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    ...ROLE,
    3: { name: 'aggregationRule', kind: 'message', layout: { 1: { name: 'clusterRoleSelectors', kind: 'message', repeated: true, layout: LABEL_SELECTOR } } },
  },
  'rbac.authorization.k8s.io/v1/Role': ROLE,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: { name: 'spec', kind: 'message', layout: ACCESS_ATTRIBUTES },
  },
  'authorization.k8s.io/v1/SubjectAccessReview': SUBJECT_ACCESS_REVIEW,
  'authorization.k8s.io/v1/LocalSubjectAccessReview': SUBJECT_ACCESS_REVIEW,
  // Only the type matters: the review's status is the server's answer (kubectl whoami sends it empty).
  'authentication.k8s.io/v1/SelfSubjectReview': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
  },
  'v1/ServiceAccount': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: {
      name: 'secrets',
      kind: 'message',
      repeated: true,
      layout: {
        1: { name: 'kind', kind: 'string' },
        2: { name: 'namespace', kind: 'string' },
        3: { name: 'name', kind: 'string' },
        4: { name: 'uid', kind: 'string' },
        5: { name: 'apiVersion', kind: 'string' },
        6: { name: 'resourceVersion', kind: 'string' },
        7: { name: 'fieldPath', kind: 'string' },
      },
    },
    3: { name: 'imagePullSecrets', kind: 'message', repeated: true, layout: { 1: { name: 'name', kind: 'string' } } },
    4: { name: 'automountServiceAccountToken', kind: 'bool' },
  },
  // kubectl create token; the status is the server's answer.
  'authentication.k8s.io/v1/TokenRequest': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: {
      name: 'spec',
      kind: 'message',
      layout: {
        1: { name: 'audiences', kind: 'string', repeated: true },
        4: { name: 'expirationSeconds', kind: 'int64' },
        3: {
          name: 'boundObjectRef',
          kind: 'message',
          layout: {
            1: { name: 'kind', kind: 'string' },
            2: { name: 'apiVersion', kind: 'string' },
            3: { name: 'name', kind: 'string' },
            4: { name: 'uid', kind: 'string' },
          },
        },
      },
    },
  },
  'authentication.k8s.io/v1/TokenReview': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: { name: 'spec', kind: 'message', layout: { 1: { name: 'token', kind: 'string' }, 2: { name: 'audiences', kind: 'string', repeated: true } } },
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: { name: 'metadata', kind: 'message', layout: OBJECT_META },
    2: { name: 'spec', kind: 'message', layout: { 1: { name: 'namespace', kind: 'string' } } },
  },
};

/** ProtobufBodyError is a protobuf body that cannot be decoded; its message is the real decoder's kind of text. */
export class ProtobufBodyError extends Error {
  override readonly name = 'ProtobufBodyError';
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function readMessage(reader: BinaryReader, end: number, layout: MessageLayout): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    const field = layout[number];
    if (field === undefined) {
      reader.skip(wireType, number);
      continue;
    }
    let value: unknown;
    switch (field.kind) {
      case 'string':
        value = reader.string();
        break;
      case 'int64':
        value = Number(reader.int64());
        break;
      case 'int32':
        value = reader.int32();
        break;
      case 'bool':
        value = reader.bool();
        break;
      case 'time': {
        const length = reader.uint32();
        const time = readMessage(reader, reader.pos + length, { 1: { name: 'seconds', kind: 'int64' }, 2: { name: 'nanos', kind: 'int32' } });
        value = new Date(Number(time['seconds'] ?? 0) * 1000).toISOString().replace('.000Z', 'Z');
        break;
      }
      case 'map': {
        const length = reader.uint32();
        const entry = readMessage(reader, reader.pos + length, { 1: { name: 'key', kind: 'string' }, 2: { name: 'value', kind: 'string' } });
        out[field.name] ??= {};
        const map = out[field.name] as Record<string, unknown>;
        map[String(entry['key'] ?? '')] = entry['value'] ?? '';
        continue;
      }
      case 'message': {
        const length = reader.uint32();
        value = readMessage(reader, reader.pos + length, field.layout);
        break;
      }
    }
    if (field.repeated === true) {
      out[field.name] ??= [];
      (out[field.name] as unknown[]).push(value);
    } else {
      out[field.name] = value;
    }
  }
  return out;
}

/** decodeProtobufBody turns a Kubernetes protobuf body into its JSON object form. */
export function decodeProtobufBody(bytes: Uint8Array): Record<string, unknown> {
  if (bytes.length < 4 || MAGIC.some((byte, index) => bytes[index] !== byte))
    throw new ProtobufBodyError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  try {
    // The envelope is runtime.Unknown: typeMeta = 1, raw (the object's bytes) = 2.
    const again = new BinaryReader(bytes.subarray(4));
    let raw: Uint8Array = new Uint8Array();
    let typeMeta: Record<string, unknown> = {};
    while (again.pos < again.len) {
      const [number, wireType] = again.tag();
      if (number === 2 && wireType === WireType.LengthDelimited) raw = again.bytes();
      else if (number === 1 && wireType === WireType.LengthDelimited) {
        const length = again.uint32();
        typeMeta = readMessage(again, again.pos + length, { 1: { name: 'apiVersion', kind: 'string' }, 2: { name: 'kind', kind: 'string' } });
      } else again.skip(wireType, number);
    }
    const apiVersion = String(typeMeta['apiVersion'] ?? '');
    const kind = String(typeMeta['kind'] ?? '');
    // DeleteOptions is registered in every group-version (metav1.AddToGroupVersion): kubectl auth reconcile sends it as rbac's.
    const layout = kind === 'DeleteOptions' ? DELETE_OPTIONS : LAYOUTS[`${apiVersion}/${kind}`];
    if (layout === undefined) throw new ProtobufBodyError(`no kind "${kind}" is registered for version "${apiVersion}"`);
    const objectReader = new BinaryReader(raw);
    return { apiVersion, kind, ...readMessage(objectReader, objectReader.len, layout) };
  } catch (error) {
    if (error instanceof ProtobufBodyError) throw error;
    throw new ProtobufBodyError(`unable to decode protobuf body: ${(error as Error).message}`);
  }
}
