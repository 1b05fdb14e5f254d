/**
 * Schemas of the meta.k8s.io and core types every resource embeds (ObjectMeta, ListMeta,
 * LabelSelector, ObjectReference), under their upstream OpenAPI component names.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** OBJECT_META is the component name of ObjectMeta. */
export const OBJECT_META = `${META}.ObjectMeta`;
/** LIST_META is the component name of ListMeta. */
export const LIST_META = `${META}.ListMeta`;
/** LABEL_SELECTOR is the component name of LabelSelector. */
export const LABEL_SELECTOR = `${META}.LabelSelector`;
/** OBJECT_REFERENCE is the component name of core ObjectReference. */
export const OBJECT_REFERENCE = 'io.k8s.api.core.v1.ObjectReference';

const str = (description: string): Schema => ({ type: 'string', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, listType: 'atomic', description });
const stringMap = (description: string): Schema => ({ type: 'map', values: { type: 'string' }, description });

/** META_SCHEMAS are the shared schemas, keyed by component name. */
export const META_SCHEMAS: SchemaSet = {
  [OBJECT_META]: {
    type: 'object',
    goName: 'ObjectMeta',
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    properties: {
      name: str('Name must be unique within a namespace. Cannot be updated.'),
      generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
      namespace: str('Namespace defines the space within which each name must be unique. Cannot be updated.'),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      uid: str('UID is the unique in time and space value for this object. Populated by the system. Read-only.'),
      resourceVersion: str('An opaque value that represents the internal version of this object. Populated by the system. Read-only.'),
      generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
      creationTimestamp: {
        type: 'string',
        format: 'date-time',
        description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
      },
      deletionTimestamp: {
        type: 'string',
        format: 'date-time',
        description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
      },
      deletionGracePeriodSeconds: {
        type: 'integer',
        format: 'int64',
        description: 'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
      },
      labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ),
      ownerReferences: {
        type: 'array',
        items: { $ref: `${META}.OwnerReference` },
        listType: 'map',
        listMapKeys: ['uid'],
        patchStrategy: 'merge',
        patchMergeKey: 'uid',
        description: 'List of objects depended by this object.',
      },
      finalizers: {
        type: 'array',
        items: { type: 'string' },
        listType: 'set',
        patchStrategy: 'merge',
        description: 'Must be empty before the object is deleted from the registry.',
      },
      managedFields: {
        type: 'array',
        items: { $ref: `${META}.ManagedFieldsEntry` },
        listType: 'atomic',
        description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      },
    },
  },
  [`${META}.OwnerReference`]: {
    type: 'object',
    goName: 'OwnerReference',
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    mapType: 'atomic',
    properties: {
      apiVersion: str('API version of the referent.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
      blockOwnerDeletion: {
        type: 'boolean',
        description:
          'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
      },
    },
  },
  [`${META}.ManagedFieldsEntry`]: {
    type: 'object',
    goName: 'ManagedFieldsEntry',
    description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    properties: {
      manager: str('Manager is an identifier of the workflow managing these fields.'),
      operation: {
        type: 'string',
        goType: 'v1.ManagedFieldsOperationType',
        description: 'Operation is the type of operation which lead to this ManagedFieldsEntry being created.',
      },
      apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
      time: { type: 'string', format: 'date-time', description: 'Time is the timestamp of when the ManagedFields entry was added.' },
      fieldsType: str('FieldsType is the discriminator for the different fields format and version.'),
      fieldsV1: { type: 'any', description: 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.' },
      subresource: str('Subresource is the name of the subresource used to update that object.'),
    },
  },
  [LIST_META]: {
    type: 'object',
    goName: 'ListMeta',
    description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      resourceVersion: str(
        "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed.",
      ),
      continue: str('continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available.'),
      remainingItemCount: {
        type: 'integer',
        format: 'int64',
        description: 'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
      },
    },
  },
  [LABEL_SELECTOR]: {
    type: 'object',
    goName: 'LabelSelector',
    description: 'A label selector is a label query over a set of resources.',
    mapType: 'atomic',
    properties: {
      matchLabels: stringMap('matchLabels is a map of {key,value} pairs.'),
      matchExpressions: {
        type: 'array',
        items: { $ref: `${META}.LabelSelectorRequirement` },
        listType: 'atomic',
        description: 'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
      },
    },
  },
  [`${META}.LabelSelectorRequirement`]: {
    type: 'object',
    goName: 'LabelSelectorRequirement',
    description: 'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    required: ['key', 'operator'],
    properties: {
      key: str('key is the label key that the selector applies to.'),
      operator: str("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
      values: strings('values is an array of string values.'),
    },
  },
  [OBJECT_REFERENCE]: {
    type: 'object',
    goName: 'ObjectReference',
    description: 'ObjectReference contains enough information to let you inspect or modify the referred object.',
    mapType: 'atomic',
    properties: {
      kind: str('Kind of the referent.'),
      namespace: str('Namespace of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      apiVersion: str('API version of the referent.'),
      resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
      fieldPath: str('If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.'),
    },
  },
};

/** listSchema builds the `<Kind>List` schema of an item type. */
export function listSchema(goName: string, itemRef: string, description: string): Schema {
  return {
    type: 'object',
    goName,
    description,
    required: ['items'],
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      metadata: { $ref: LIST_META },
      items: { type: 'array', items: { $ref: itemRef } },
    },
  };
}

/** TYPE_FIELDS are `apiVersion` and `kind`, which every object schema has. */
export const TYPE_FIELDS: Readonly<Record<string, Schema>> = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
  metadata: { $ref: OBJECT_META },
};
