/**
 * The core v1 group-version as served here: Namespace and the core view of Event, plus the
 * shared meta types, in one schema set (one OpenAPI document, `/openapi/v3/api/v1`).
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { CORE_EVENT_SCHEMAS } from './event-schemas.ts';
import { listSchema, META_SCHEMAS, TYPE_FIELDS } from './meta-schemas.ts';

const CORE = 'io.k8s.api.core.v1';

/** NAMESPACE_SCHEMA_NAME is the component name of Namespace. */
export const NAMESPACE_SCHEMA_NAME = `${CORE}.Namespace`;

const str = (description: string): Schema => ({ type: 'string', description });

/** CORE_V1_SCHEMAS describe core v1 as served here. */
export const CORE_V1_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  ...CORE_EVENT_SCHEMAS,
  [NAMESPACE_SCHEMA_NAME]: {
    type: 'object',
    goName: 'Namespace',
    description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    properties: { ...TYPE_FIELDS, spec: { $ref: `${CORE}.NamespaceSpec` }, status: { $ref: `${CORE}.NamespaceStatus` } },
  },
  [`${CORE}.NamespaceSpec`]: {
    type: 'object',
    goName: 'NamespaceSpec',
    description: 'NamespaceSpec describes the attributes on a Namespace.',
    properties: {
      finalizers: {
        type: 'array',
        items: { type: 'string' },
        listType: 'atomic',
        description: 'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
      },
    },
  },
  [`${CORE}.NamespaceStatus`]: {
    type: 'object',
    goName: 'NamespaceStatus',
    description: 'NamespaceStatus is information about the current status of a Namespace.',
    properties: {
      phase: { type: 'string', enum: ['Active', 'Terminating'], description: 'Phase is the current lifecycle phase of the namespace.' },
      conditions: {
        type: 'array',
        items: { $ref: `${CORE}.NamespaceCondition` },
        listType: 'map',
        listMapKeys: ['type'],
        description: "Represents the latest available observations of a namespace's current state.",
      },
    },
  },
  [`${CORE}.NamespaceCondition`]: {
    type: 'object',
    goName: 'NamespaceCondition',
    description: 'NamespaceCondition contains details about state of namespace.',
    required: ['type', 'status'],
    properties: {
      type: str('Type of namespace controller condition.'),
      status: str('Status of the condition, one of True, False, Unknown.'),
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'Last time the condition transitioned from one status to another.' },
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      message: str('Human-readable message indicating details about last transition.'),
    },
  },
  [`${CORE}.NamespaceList`]: listSchema('NamespaceList', NAMESPACE_SCHEMA_NAME, 'NamespaceList is a list of Namespaces.'),
};
