/**
 * rbac.authorization.k8s.io/v1 RoleBinding: grants a Role of its namespace, or a ClusterRole
 * limited to its namespace, to users, groups and service accounts (a ServiceAccount subject without
 * a namespace means the binding's). Defaults and validation are ClusterRoleBinding's with the
 * namespaced differences (upstream `pkg/apis/rbac/validation` `ValidateRoleBinding`).
 */
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import {
  bindingTableRow,
  CLUSTER_ROLE_BINDING_SCHEMAS,
  clusterRoleBindingStrategy,
  defaultBinding,
  RBAC_GROUP,
  validateBinding,
  validateBindingUpdate,
  type ClusterRoleBinding,
} from './cluster-role-bindings.ts';
import { listSchema, TYPE_FIELDS } from './meta-schemas.ts';

/** RoleBinding is the stored (and served) RoleBinding: a ClusterRoleBinding's fields, in a namespace. */
export type RoleBinding = ClusterRoleBinding;

/** ROLE_BINDING_STORE_KIND is where RoleBindings live (keys `namespace/name`). */
export const ROLE_BINDING_STORE_KIND = 'cluster/rolebindings';

const RBAC = 'io.k8s.api.rbac.v1';

/** ROLE_BINDING_SCHEMAS describe RoleBinding as served here (RoleRef and Subject come from the ClusterRoleBinding set). */
export const ROLE_BINDING_SCHEMAS: SchemaSet = {
  ...CLUSTER_ROLE_BINDING_SCHEMAS,
  [`${RBAC}.RoleBinding`]: {
    type: 'object',
    goName: 'RoleBinding',
    description:
      'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.',
    required: ['roleRef'],
    properties: {
      ...TYPE_FIELDS,
      roleRef: { $ref: `${RBAC}.RoleRef` },
      subjects: {
        type: 'array',
        items: { $ref: `${RBAC}.Subject` },
        listType: 'atomic',
        description: 'Subjects holds references to the objects the role applies to.',
      },
    },
  },
  [`${RBAC}.RoleBindingList`]: listSchema('RoleBindingList', `${RBAC}.RoleBinding`, 'RoleBindingList is a collection of RoleBindings'),
};

const ROLE_COLUMN_DESCRIPTION =
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.';

/** roleBindingStrategy is RoleBinding's behaviour in the generic registry (NAME, ROLE, AGE; `-o wide` adds the subjects). */
export const roleBindingStrategy = {
  namespaced: true,
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: RBAC_GROUP, kind: 'RoleBinding' },
  prepareForCreate: (binding) => defaultBinding(binding),
  prepareForUpdate: (binding) => defaultBinding(binding),
  validate: (binding) => validateBinding(binding, true),
  validateUpdate: (binding, old) => validateBindingUpdate(binding, old, true),
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: clusterRoleBindingStrategy.tableColumns.map((column) =>
    column.name === 'Role' ? { ...column, description: ROLE_COLUMN_DESCRIPTION } : column,
  ),
  tableRow: bindingTableRow,
} satisfies ResourceStrategy<RoleBinding>;

/** roleBindingsView serves RoleBindings at rbac.authorization.k8s.io/v1. */
export const roleBindingsView = {
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'rolebindings',
  singular: 'rolebinding',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  shortNames: [],
  categories: [],
  storeKind: ROLE_BINDING_STORE_KIND,
  strategy: roleBindingStrategy,
  schemas: ROLE_BINDING_SCHEMAS,
  schemaName: `${RBAC}.RoleBinding`,
  listSchemaName: `${RBAC}.RoleBindingList`,
  toExternal: (binding) => binding,
  toInternal: (binding) => binding,
  selectableFields: (binding) => ({ 'metadata.name': binding.metadata.name ?? '', 'metadata.namespace': binding.metadata.namespace ?? '' }),
} satisfies ResourceView<RoleBinding, RoleBinding>;
