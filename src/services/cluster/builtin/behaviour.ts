/**
 * The contract of a thin per-kind behaviour file (resources/<kind>.ts): what one built-in kind
 * adds to the generic, schema-driven strategy — defaults, the Go validations the schema cannot
 * express, server-side printing columns, field selectors. Every hook is optional.
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject, NameRule } from '../apimachinery/object-meta.ts';
import type { RequestInfo, TableColumn } from '../apimachinery/strategy.ts';

/** BuiltinObject is a stored built-in object: metadata plus whatever its schema allows. */
export type BuiltinObject = KubeObject & Record<string, unknown>;

/** KindBehaviour is what one kind adds to the generic strategy. */
export interface KindBehaviour {
  /** nameRule overrides the default DNS-subdomain rule for `metadata.name`. */
  readonly nameRule?: NameRule;
  /** allowUnconditionalUpdate false makes a PUT without `metadata.resourceVersion` a 422, as the kind's upstream strategy says (default true). */
  readonly allowUnconditionalUpdate?: boolean;
  /** prepareForCreate fills defaults and server-owned fields of a new object (after the generic preparation). */
  prepareForCreate?(object: BuiltinObject, request: RequestInfo): void;
  /** prepareForUpdate carries server-owned fields over and fills defaults (after the generic preparation). */
  prepareForUpdate?(object: BuiltinObject, old: BuiltinObject, request: RequestInfo): void;
  /** validate adds the apiserver's Go validations of a new object. */
  validate?(object: BuiltinObject): FieldError[];
  /** validateUpdate adds the rules of a change (immutable fields); `validate` runs on updates too. */
  validateUpdate?(object: BuiltinObject, old: BuiltinObject): FieldError[];
  /** validateOnUpdate replaces `validate` and `validateUpdate` on an update, for a kind whose upstream update rules relax its create rules by what the stored object had (the admission configurations). */
  validateOnUpdate?(object: BuiltinObject, old: BuiltinObject): FieldError[];
  /** validateStatusUpdate replaces the whole-object rules on a `/status` write, for a kind whose upstream status strategy validates the status alone. */
  validateStatusUpdate?(object: BuiltinObject, old: BuiltinObject): FieldError[];
  /** tableColumns and tableRow replace the default `Name`, `Age` columns. */
  readonly tableColumns?: readonly TableColumn[];
  tableRow?(object: BuiltinObject, now: number): unknown[];
  /** selectableFields adds field-selector labels beyond `metadata.name` and `metadata.namespace`. */
  selectableFields?(object: BuiltinObject): Record<string, string>;
}

/** NAME_COLUMN is the `Name` column every table starts with. */
export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

/** CREATED_AT_COLUMN is the `Created At` column of the kinds kubectl prints as `NAME CREATED AT` (ClusterRole, Role, CustomResourceDefinition). */
export const CREATED_AT_COLUMN: TableColumn = {
  name: 'Created At',
  type: 'date',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
  priority: 0,
};

/** AGE_COLUMN is the `Age` column. */
export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  priority: 0,
};

/** column is a printing column with a short description. */
export function column(name: string, description: string, priority = 0, type: TableColumn['type'] = 'string'): TableColumn {
  return { name, type, format: '', description, priority };
}
