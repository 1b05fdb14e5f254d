/**
 * rbac.authorization.k8s.io/v1 Role: a namespaced ClusterRole without aggregation. Its rules are
 * validated as a ClusterRole's, and may not name non-resource URLs (upstream
 * `pkg/apis/rbac/validation` `ValidateRole`); everything else is the generic registry's.
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { RBAC_GROUP } from './cluster-role-bindings.ts';
import { CLUSTER_ROLE_SCHEMAS, clusterRoleStrategy, validatePolicyRule, type PolicyRule } from './cluster-roles.ts';
import { listSchema, TYPE_FIELDS } from './meta-schemas.ts';

/** Role is the stored (and served) Role. */
export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

/** ROLE_STORE_KIND is where Roles live (keys `namespace/name`). */
export const ROLE_STORE_KIND = 'cluster/roles';

const RBAC = 'io.k8s.api.rbac.v1';

/** ROLE_SCHEMAS describe Role as served here (PolicyRule and the meta types come from the ClusterRole set). */
export const ROLE_SCHEMAS: SchemaSet = {
  ...CLUSTER_ROLE_SCHEMAS,
  [`${RBAC}.Role`]: {
    type: 'object',
    goName: 'Role',
    description: 'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
    properties: {
      ...TYPE_FIELDS,
      rules: { type: 'array', items: { $ref: `${RBAC}.PolicyRule` }, listType: 'atomic', description: 'Rules holds all the PolicyRules for this Role' },
    },
  },
  [`${RBAC}.RoleList`]: listSchema('RoleList', `${RBAC}.Role`, 'RoleList is a collection of Roles'),
};

function validateRole(role: Role): FieldError[] {
  return (role.rules ?? []).flatMap((rule, index) => validatePolicyRule(rule, `rules[${index}]`, true));
}

/** roleStrategy is Role's behaviour in the generic registry (printed as ClusterRoles are: NAME, CREATED AT). */
export const roleStrategy = {
  namespaced: true,
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: RBAC_GROUP, kind: 'Role' },
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  validate: (role) => validateRole(role),
  validateUpdate: (role) => validateRole(role),
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: clusterRoleStrategy.tableColumns,
  tableRow: (role) => [role.metadata.name ?? '', role.metadata.creationTimestamp ?? ''],
} satisfies ResourceStrategy<Role>;

/** rolesView serves Roles at rbac.authorization.k8s.io/v1. */
export const rolesView = {
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'roles',
  singular: 'role',
  kind: 'Role',
  listKind: 'RoleList',
  shortNames: [],
  categories: [],
  storeKind: ROLE_STORE_KIND,
  strategy: roleStrategy,
  schemas: ROLE_SCHEMAS,
  schemaName: `${RBAC}.Role`,
  listSchemaName: `${RBAC}.RoleList`,
  toExternal: (role) => role,
  toInternal: (role) => role,
  selectableFields: (role) => ({ 'metadata.name': role.metadata.name ?? '', 'metadata.namespace': role.metadata.namespace ?? '' }),
} satisfies ResourceView<Role, Role>;
