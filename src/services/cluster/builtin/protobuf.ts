/**
 * Protobuf bodies of the built-in kinds (what kubectl's typed clients send for `kubectl create
 * deployment|configmap|secret|service|job`), decoded with the field layouts generated from the
 * upstream `generated.proto` files into the JSON form the rest of the server handles. The
 * apimachinery wrapper types (Time, MicroTime, Quantity, IntOrString, RawExtension, ObjectMeta,
 * LabelSelector, Condition) are described here, as their JSON forms are not messages.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { KUBE_PROTOBUF_JSON } from './kube-schemas.generated.ts';
import { schemaNameOf } from './kinds.ts';

/** FieldLayout is `[jsonName, type, repeated, omitZero]`; type is a scalar, `map:<value type>` or a message name; omitZero marks Go's omitempty non-pointer scalars. */
type FieldLayout = readonly [name: string, type: string, repeated?: 0 | 1, omitZero?: 0 | 1];
type MessageLayout = Readonly<Record<string, FieldLayout>>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const TIME = `${META}.Time`;
const MICRO_TIME = `${META}.MicroTime`;
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** The meta types' layouts (k8s.io/apimachinery `pkg/apis/meta/v1/generated.proto`). */
const META_LAYOUTS: Readonly<Record<string, MessageLayout>> = {
  [`${META}.ObjectMeta`]: {
    1: ['name', 'string'],
    2: ['generateName', 'string'],
    3: ['namespace', 'string'],
    5: ['uid', 'string'],
    6: ['resourceVersion', 'string'],
    7: ['generation', 'int64', 0, 1],
    8: ['creationTimestamp', TIME],
    9: ['deletionTimestamp', TIME],
    10: ['deletionGracePeriodSeconds', 'int64'],
    11: ['labels', 'map:string'],
    12: ['annotations', 'map:string'],
    13: ['ownerReferences', `${META}.OwnerReference`, 1],
    14: ['finalizers', 'string', 1],
  },
  [`${META}.OwnerReference`]: {
    1: ['kind', 'string'],
    3: ['name', 'string'],
    4: ['uid', 'string'],
    5: ['apiVersion', 'string'],
    6: ['controller', 'bool'],
    7: ['blockOwnerDeletion', 'bool'],
  },
  [`${META}.LabelSelector`]: { 1: ['matchLabels', 'map:string'], 2: ['matchExpressions', `${META}.LabelSelectorRequirement`, 1] },
  [`${META}.LabelSelectorRequirement`]: { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'string', 1] },
  [`${META}.Condition`]: {
    1: ['type', 'string'],
    2: ['status', 'string'],
    3: ['observedGeneration', 'int64'],
    4: ['lastTransitionTime', TIME],
    5: ['reason', 'string'],
    6: ['message', 'string'],
  },
};

let layouts: Readonly<Record<string, MessageLayout>> | undefined;

/**
 * The `autoscaling/v1` Scale layouts (k8s.io/api `autoscaling/v1/generated.proto`), which the
 * generated data lacks: kubectl scale PUTs one to `/scale` when it checks --current-replicas.
 */
const SCALE_LAYOUTS: Readonly<Record<string, MessageLayout>> = {
  'io.k8s.api.autoscaling.v1.Scale': {
    1: ['metadata', `${META}.ObjectMeta`],
    2: ['spec', 'io.k8s.api.autoscaling.v1.ScaleSpec'],
    3: ['status', 'io.k8s.api.autoscaling.v1.ScaleStatus'],
  },
  'io.k8s.api.autoscaling.v1.ScaleSpec': { 1: ['replicas', 'int32', 0, 1] },
  'io.k8s.api.autoscaling.v1.ScaleStatus': { 1: ['replicas', 'int32'], 2: ['selector', 'string'] },
};

function layoutOf(name: string): MessageLayout | undefined {
  layouts ??= { ...(JSON.parse(KUBE_PROTOBUF_JSON) as Record<string, MessageLayout>), ...META_LAYOUTS, ...SCALE_LAYOUTS };
  return layouts[name];
}

function formatInstant(seconds: bigint, nanos: number, micro: boolean): string {
  const iso = new Date(Number(seconds) * 1000).toISOString();
  if (!micro) return iso.replace('.000Z', 'Z');
  return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function readScalar(reader: BinaryReader, type: string): unknown {
  switch (type) {
    case 'string':
      return reader.string();
    case 'int32':
      return reader.int32();
    case 'int64':
      return Number(reader.int64());
    case 'bool':
      return reader.bool();
    case 'bytes':
      return Buffer.from(reader.bytes()).toString('base64');
    case 'double':
      return reader.double();
    case 'float':
      return reader.float();
    default:
      return readMessageValue(reader, type);
  }
}

/** readMessageValue reads one length-delimited message of `type` and answers its JSON form. */
function readMessageValue(reader: BinaryReader, type: string): unknown {
  const length = reader.uint32();
  const end = reader.pos + length;
  switch (type) {
    case TIME:
    case MICRO_TIME: {
      let seconds = 0n;
      let nanos = 0;
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        if (number === 1) seconds = BigInt(reader.int64());
        else if (number === 2) nanos = reader.int32();
        else reader.skip(wireType, number);
      }
      // A zero Time is written as an empty message.
      return seconds === 0n && nanos === 0 ? undefined : formatInstant(seconds, nanos, type === MICRO_TIME);
    }
    case QUANTITY: {
      let text = '';
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        if (number === 1) text = reader.string();
        else reader.skip(wireType, number);
      }
      return text;
    }
    case INT_OR_STRING: {
      let kind = 0;
      let intVal = 0;
      let strVal = '';
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        if (number === 1) kind = Number(reader.int64());
        else if (number === 2) intVal = reader.int32();
        else if (number === 3) strVal = reader.string();
        else reader.skip(wireType, number);
      }
      return kind === 1 ? strVal : intVal;
    }
    case RAW_EXTENSION: {
      let raw: Uint8Array = new Uint8Array();
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        if (number === 1) raw = reader.bytes();
        else reader.skip(wireType, number);
      }
      return raw.length === 0 ? {} : JSON.parse(Buffer.from(raw).toString('utf8'));
    }
    default: {
      const layout = layoutOf(type);
      if (layout === undefined) throw new Error(`no protobuf layout for ${type}`);
      return readFields(reader, end, layout);
    }
  }
}

function readFields(reader: BinaryReader, end: number, layout: MessageLayout): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    const field = layout[number];
    if (field === undefined) {
      reader.skip(wireType, number);
      continue;
    }
    const [name, type, repeated, omitZero] = field;
    if (type.startsWith('map:')) {
      const valueType = type.slice(4);
      const length = reader.uint32();
      const entryEnd = reader.pos + length;
      let key = '';
      let value: unknown = valueType === 'string' ? '' : undefined;
      while (reader.pos < entryEnd) {
        const [entryNumber, entryWire] = reader.tag();
        if (entryNumber === 1) key = reader.string();
        else if (entryNumber === 2) value = readScalar(reader, valueType);
        else reader.skip(entryWire, entryNumber);
      }
      out[name] ??= {};
      const map = out[name] as Record<string, unknown>;
      map[key] = value ?? (valueType === 'bytes' ? '' : {});
      continue;
    }
    if (repeated === 1) {
      out[name] ??= [];
      const list = out[name] as unknown[];
      const numeric = type === 'int32' || type === 'int64' || type === 'bool' || type === 'double' || type === 'float';
      if (numeric && wireType === WireType.LengthDelimited) {
        // A packed list of numbers.
        const length = reader.uint32();
        const listEnd = reader.pos + length;
        while (reader.pos < listEnd) list.push(readScalar(reader, type));
      } else {
        list.push(readScalar(reader, type));
      }
      continue;
    }
    const value = readScalar(reader, type);
    // The protobuf form writes zero values that Go's JSON leaves out (omitempty), and zero times.
    if (value === undefined || value === '' || (omitZero === 1 && (value === 0 || value === false))) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** decodeBuiltinProtobuf decodes the raw object bytes of a built-in kind; undefined when the kind has no generated layout. */
export function decodeBuiltinProtobuf(apiVersion: string, kind: string, raw: Uint8Array): Record<string, unknown> | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash === -1 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const layout = layoutOf(schemaNameOf({ group, version, kind }));
  if (layout === undefined) return undefined;
  const reader = new BinaryReader(raw);
  return { apiVersion, kind, ...readFields(reader, reader.len, layout) };
}
