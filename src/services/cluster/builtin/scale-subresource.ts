/**
 * The `/scale` subresource of the kinds whose table row has the `c` flag (deployments,
 * replicasets, statefulsets, replicationcontrollers): an `autoscaling/v1` `Scale` view over the
 * same stored objects, as the apiserver's ScaleREST serves it. A read shows `spec.replicas`,
 * `status.replicas` and the label selector as a string; a write changes the parent's
 * `spec.replicas` alone (so `generation` bumps as for any spec change).
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { fromStructured, type Requirement, type StructuredLabelSelector } from '../apimachinery/label-selector.ts';
import { META_SCHEMAS, OBJECT_META } from '../resources/meta-schemas.ts';
import { AGE_COLUMN, type BuiltinObject, NAME_COLUMN } from './behaviour.ts';

/** SCALE_SCHEMA is the component name of `autoscaling/v1` Scale. */
export const SCALE_SCHEMA = 'io.k8s.api.autoscaling.v1.Scale';

const AUTOSCALING = 'io.k8s.api.autoscaling.v1';

/** SCALE_SCHEMAS are the schemas of Scale and the meta types it embeds. */
export const SCALE_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [SCALE_SCHEMA]: {
    type: 'object',
    goName: 'Scale',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { $ref: OBJECT_META },
      spec: { $ref: `${AUTOSCALING}.ScaleSpec` },
      status: { $ref: `${AUTOSCALING}.ScaleStatus` },
    },
  },
  [`${AUTOSCALING}.ScaleSpec`]: {
    type: 'object',
    goName: 'ScaleSpec',
    description: 'ScaleSpec describes the attributes of a scale subresource.',
    properties: { replicas: { type: 'integer', format: 'int32', description: 'replicas is the desired number of instances for the scaled object.' } },
  },
  [`${AUTOSCALING}.ScaleStatus`]: {
    type: 'object',
    goName: 'ScaleStatus',
    description: 'ScaleStatus represents the current status of a scale subresource.',
    required: ['replicas'],
    properties: {
      replicas: { type: 'integer', format: 'int32', description: 'replicas is the actual number of observed instances of the scaled object.' },
      selector: { type: 'string', description: 'selector is the label query over pods that should match the replicas count.' },
    },
  },
};

/** requirementText is one requirement as apimachinery's `Requirement.String` writes it (values sorted). */
function requirementText(requirement: Requirement): string {
  const values = [...requirement.values].sort();
  switch (requirement.operator) {
    case 'exists':
      return requirement.key;
    case '!':
      return `!${requirement.key}`;
    case 'in':
    case 'notin':
      return `${requirement.key} ${requirement.operator} (${values.join(',')})`;
    default:
      return `${requirement.key}${requirement.operator}${values.join(',')}`;
  }
}

/**
 * selectorText is the parent's pod selector as the Scale's `status.selector` string: a
 * replication controller's label map, or the others' LabelSelector, with requirements sorted
 * by key as `labels.Selector.String()` orders them. An unconvertible selector reads as empty.
 */
export function selectorText(object: BuiltinObject, labelMap: boolean): string {
  const selector = (object['spec'] as { selector?: unknown } | undefined)?.selector;
  if (selector === null || typeof selector !== 'object') return '';
  try {
    const structured: StructuredLabelSelector = labelMap ? { matchLabels: selector as Record<string, string> } : (selector as StructuredLabelSelector);
    const requirements = [...fromStructured(structured).requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return requirements.map(requirementText).join(',');
  } catch {
    return '';
  }
}

/** replicasOf reads an integer replica count, 0 when absent. */
function replicasOf(section: unknown): number {
  const value = (section as { replicas?: unknown } | undefined)?.replicas;
  return typeof value === 'number' ? value : 0;
}

/** scaleOf is the Scale of a stored parent (without apiVersion/kind, which the view adds). */
export function scaleOf(stored: BuiltinObject, labelMap: boolean): BuiltinObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = stored.metadata;
  return {
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
    },
    spec: { replicas: replicasOf(stored['spec']) },
    status: { replicas: replicasOf(stored['status']), selector: selectorText(stored, labelMap) },
  };
}

/**
 * scaleStrategy writes a Scale onto its parent: the stored object stays as it was but for
 * `spec.replicas` (and the managedFields the registry computed); the Scale is validated as
 * ValidateScale does, then the parent as its own strategy does, with the parent's generation rule.
 */
function scaleStrategy(main: ResourceStrategy<BuiltinObject>): ResourceStrategy<BuiltinObject> {
  const replicasError = (object: BuiltinObject): FieldError[] => {
    const replicas = (object['spec'] as { replicas?: number } | undefined)?.replicas ?? 0;
    return replicas < 0 ? [{ type: 'FieldValueInvalid', field: 'spec.replicas', value: replicas, detail: 'must be greater than or equal to 0' }] : [];
  };
  return {
    ...main,
    invalidKind: { group: 'autoscaling', kind: 'Scale' },
    prepareForCreate: () => undefined,
    prepareForUpdate(object, old, request) {
      const replicas = replicasOf(object['spec']);
      const managedFields = object.metadata.managedFields;
      for (const key of Object.keys(object)) delete object[key];
      Object.assign(object, structuredClone(old));
      object.metadata = { ...object.metadata, ...(managedFields === undefined ? {} : { managedFields }) };
      object['spec'] = { ...(object['spec'] as Record<string, unknown> | undefined), replicas };
      main.prepareForUpdate(object, old, request);
    },
    validateUpdate(object, old, request) {
      const errors = replicasError(object);
      return errors.length > 0 ? errors : main.validateUpdate(object, old, request);
    },
    tableColumns: [NAME_COLUMN, AGE_COLUMN],
    tableRow: (object, now) => [object.metadata.name ?? '', ageSince(object.metadata.creationTimestamp, now)],
  };
}

/** scaleView is the `/scale` view of a kind's main view; its wire objects are `autoscaling/v1` Scales. */
export function scaleView(main: ResourceView<BuiltinObject, BuiltinObject>): ResourceView<BuiltinObject, BuiltinObject> {
  const labelMap = main.group === '' && main.kind === 'ReplicationController';
  return {
    ...main,
    subresource: 'scale',
    kind: 'Scale',
    listKind: 'ScaleList',
    responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    parent: main,
    strategy: scaleStrategy(main.strategy),
    schemas: SCALE_SCHEMAS,
    schemaName: SCALE_SCHEMA,
    listSchemaName: SCALE_SCHEMA,
    toExternal: (stored) => scaleOf(stored, labelMap),
    // The Scale goes to the strategy as it is; prepareForUpdate carries its replicas onto the parent.
    toInternal: (external) => external,
  };
}
