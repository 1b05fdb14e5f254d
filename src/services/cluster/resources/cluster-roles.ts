/**
 * rbac.authorization.k8s.io/v1 ClusterRole: its schema, validation (upstream
 * `pkg/apis/rbac/validation`) and printing; everything else is the generic registry's.
 */
import { invalid, required, type FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { LABEL_SELECTOR, listSchema, META_SCHEMAS, TYPE_FIELDS } from './meta-schemas.ts';
import { CREATED_AT_COLUMN, NAME_COLUMN } from '../builtin/behaviour.ts';

/** PolicyRule is one rule of a ClusterRole. */
export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** ClusterRole is the stored (and served) ClusterRole. */
export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
}

const RBAC = 'io.k8s.api.rbac.v1';

const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, listType: 'atomic', description }) as const;

/** CLUSTER_ROLE_SCHEMAS describe rbac.authorization.k8s.io/v1 as served here. */
export const CLUSTER_ROLE_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [`${RBAC}.ClusterRole`]: {
    type: 'object',
    goName: 'ClusterRole',
    description: 'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    properties: {
      ...TYPE_FIELDS,
      aggregationRule: { $ref: `${RBAC}.AggregationRule` },
      rules: { type: 'array', items: { $ref: `${RBAC}.PolicyRule` }, listType: 'atomic', description: 'Rules holds all the PolicyRules for this ClusterRole' },
    },
  },
  [`${RBAC}.AggregationRule`]: {
    type: 'object',
    goName: 'AggregationRule',
    description: 'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole',
    properties: {
      clusterRoleSelectors: {
        type: 'array',
        items: { $ref: LABEL_SELECTOR },
        listType: 'atomic',
        description:
          "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
      },
    },
  },
  [`${RBAC}.PolicyRule`]: {
    type: 'object',
    goName: 'PolicyRule',
    description:
      'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
    required: ['verbs'],
    properties: {
      verbs: strings("Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs."),
      apiGroups: strings(
        'APIGroups is the name of the APIGroup that contains the resources. If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
      ),
      resources: strings("Resources is a list of resources this rule applies to. '*' represents all resources."),
      resourceNames: strings('ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.'),
      nonResourceURLs: strings(
        'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path.',
      ),
    },
  },
  [`${RBAC}.ClusterRoleList`]: listSchema('ClusterRoleList', `${RBAC}.ClusterRole`, 'ClusterRoleList is a collection of ClusterRoles'),
};

/** validatePolicyRule applies the real rule checks (`ValidatePolicyRule`); a namespaced role's rules may not name non-resource URLs. */
export function validatePolicyRule(rule: PolicyRule, path: string, namespaced = false): FieldError[] {
  const errors: FieldError[] = [];
  if ((rule.verbs ?? []).length === 0) errors.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const nonResourceURLs = rule.nonResourceURLs ?? [];
  if (nonResourceURLs.length > 0) {
    if (namespaced) errors.push(invalid(`${path}.nonResourceURLs`, nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      errors.push(invalid(`${path}.nonResourceURLs`, nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errors;
  }
  if ((rule.apiGroups ?? []).length === 0) errors.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if ((rule.resources ?? []).length === 0) errors.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  if ((rule.resourceNames ?? []).length > 0 && (rule.resources ?? []).length > 1) {
    errors.push(required(`${path}.resourceNames`, 'resource names cannot apply to multiple resources'));
  }
  return errors;
}

function validateClusterRole(role: ClusterRole): FieldError[] {
  return (role.rules ?? []).flatMap((rule, index) => validatePolicyRule(rule, `rules[${index}]`));
}

/** clusterRoleStrategy is ClusterRole's behaviour in the generic registry. */
export const clusterRoleStrategy = {
  namespaced: false,
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  validate: (role) => validateClusterRole(role),
  validateUpdate: (role) => validateClusterRole(role),
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: [NAME_COLUMN, CREATED_AT_COLUMN],
  tableRow: (role) => [role.metadata.name ?? '', role.metadata.creationTimestamp ?? ''],
} satisfies ResourceStrategy<ClusterRole>;

/** clusterRolesView serves ClusterRoles at rbac.authorization.k8s.io/v1. */
export const clusterRolesView = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterroles',
  singular: 'clusterrole',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  shortNames: [],
  categories: [],
  storeKind: 'cluster/clusterroles',
  strategy: clusterRoleStrategy,
  schemas: CLUSTER_ROLE_SCHEMAS,
  schemaName: `${RBAC}.ClusterRole`,
  listSchemaName: `${RBAC}.ClusterRoleList`,
  toExternal: (role) => role,
  toInternal: (role) => role,
  selectableFields: (role) => ({ 'metadata.name': role.metadata.name ?? '', 'metadata.namespace': '' }),
} satisfies ResourceView<ClusterRole, ClusterRole>;
