/**
 * rbac.authorization.k8s.io/v1 ClusterRoleBinding: its schema, defaults (`SetDefaults_Subject`,
 * `SetDefaults_ClusterRoleBinding`), validation (upstream `pkg/apis/rbac/validation`) and
 * printing; everything else is the generic registry's.
 */
import { GoLiteral, invalid, notSupported, required, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { isDns1123Subdomain } from '../apimachinery/name-rules.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { listSchema, META_SCHEMAS, TYPE_FIELDS } from './meta-schemas.ts';

/** RBAC_GROUP is the API group of the RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** RoleRef names the role a binding grants. */
export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

/** Subject is one user, group or service account a binding applies to. */
export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

/** ClusterRoleBinding is the stored (and served) ClusterRoleBinding. */
export interface ClusterRoleBinding extends KubeObject {
  roleRef?: RoleRef;
  subjects?: Subject[];
}

const RBAC = 'io.k8s.api.rbac.v1';
const str = (description: string) => ({ type: 'string', description }) as const;

/** CLUSTER_ROLE_BINDING_SCHEMAS describe ClusterRoleBinding as served here. */
export const CLUSTER_ROLE_BINDING_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [`${RBAC}.ClusterRoleBinding`]: {
    type: 'object',
    goName: 'ClusterRoleBinding',
    description:
      'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
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
  [`${RBAC}.RoleRef`]: {
    type: 'object',
    goName: 'RoleRef',
    description: 'RoleRef contains information that points to the role being used',
    required: ['apiGroup', 'kind', 'name'],
    mapType: 'atomic',
    properties: {
      apiGroup: str('APIGroup is the group for the resource being referenced'),
      kind: str('Kind is the type of resource being referenced'),
      name: str('Name is the name of resource being referenced'),
    },
  },
  [`${RBAC}.Subject`]: {
    type: 'object',
    goName: 'Subject',
    description:
      'Subject contains a reference to the object or user identities a role binding applies to.  This can either hold a direct API object reference, or a value for non-objects such as user and group names.',
    required: ['kind', 'name'],
    mapType: 'atomic',
    properties: {
      kind: str(
        'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognized the kind value, the Authorizer should report an error.',
      ),
      apiGroup: str(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
      ),
      name: str('Name of the object being referenced.'),
      namespace: str(
        'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
      ),
    },
  },
  [`${RBAC}.ClusterRoleBindingList`]: listSchema(
    'ClusterRoleBindingList',
    `${RBAC}.ClusterRoleBinding`,
    'ClusterRoleBindingList is a collection of ClusterRoleBindings',
  ),
};

const PATH_SEGMENT_FORBIDDEN = [
  ['.', "may not be '.'"],
  ['..', "may not be '..'"],
] as const;

function pathSegmentErrors(field: string, name: string): FieldError[] {
  for (const [bad, detail] of PATH_SEGMENT_FORBIDDEN) if (name === bad) return [invalid(field, name, detail)];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [invalid(field, name, `may not contain '${bad}'`)];
  return [];
}

/** defaultBinding is `SetDefaults_Subject` and the roleRef's group default, for either kind of binding. */
export function defaultBinding(binding: ClusterRoleBinding): void {
  if (binding.roleRef !== undefined && (binding.roleRef.apiGroup ?? '') === '') binding.roleRef = { ...binding.roleRef, apiGroup: RBAC_GROUP };
  if (binding.subjects === undefined) return;
  binding.subjects = binding.subjects.map((subject) => {
    if ((subject.apiGroup ?? '') !== '') return subject;
    if (subject.kind === 'User' || subject.kind === 'Group') return { ...subject, apiGroup: RBAC_GROUP };
    return subject;
  });
}

/** validateSubject applies `ValidateRoleBindingSubject`: a namespaced binding's ServiceAccount may leave its namespace to the binding's. */
function validateSubject(subject: Subject, path: string, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if ((subject.name ?? '') === '') errors.push(required(`${path}.name`, ''));
  switch (subject.kind) {
    case 'ServiceAccount':
      // ValidateServiceAccountName: a DNS subdomain.
      if ((subject.name ?? '') !== '') for (const problem of isDns1123Subdomain(subject.name!)) errors.push(invalid(`${path}.name`, subject.name, problem));
      if ((subject.apiGroup ?? '') !== '') errors.push(notSupported(`${path}.apiGroup`, subject.apiGroup, ['']));
      if ((subject.namespace ?? '') === '' && !namespaced) errors.push(required(`${path}.namespace`, ''));
      break;
    case 'User':
    case 'Group':
      if (subject.apiGroup !== RBAC_GROUP) errors.push(notSupported(`${path}.apiGroup`, subject.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errors.push(notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errors;
}

/** validateBinding is `ValidateClusterRoleBinding` (roleRef kinds `ClusterRole`) or `ValidateRoleBinding` (`Role`, `ClusterRole`). */
export function validateBinding(binding: ClusterRoleBinding, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const ref = binding.roleRef ?? {};
  if (ref.apiGroup !== RBAC_GROUP) errors.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errors.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if ((ref.name ?? '') === '') errors.push(required('roleRef.name', ''));
  else errors.push(...pathSegmentErrors('roleRef.name', ref.name!));
  for (const [index, subject] of (binding.subjects ?? []).entries()) errors.push(...validateSubject(subject, `subjects[${index}]`, namespaced));
  return errors;
}

/** validateBindingUpdate adds the immutable roleRef to validateBinding (delete and recreate to change the granted role). */
export function validateBindingUpdate(binding: ClusterRoleBinding, old: ClusterRoleBinding, namespaced: boolean): FieldError[] {
  const errors = validateBinding(binding, namespaced);
  const ref = binding.roleRef ?? {};
  const before = old.roleRef ?? {};
  if ((ref.apiGroup ?? '') !== (before.apiGroup ?? '') || (ref.kind ?? '') !== (before.kind ?? '') || (ref.name ?? '') !== (before.name ?? '')) {
    const literal = `rbac.RoleRef{APIGroup:${JSON.stringify(ref.apiGroup ?? '')}, Kind:${JSON.stringify(ref.kind ?? '')}, Name:${JSON.stringify(ref.name ?? '')}}`;
    errors.push(invalid('roleRef', new GoLiteral(literal), 'cannot change roleRef'));
  }
  return errors;
}

/** bindingTableRow is the printed row of either kind of binding (`-o wide` shows the subjects). */
export function bindingTableRow(binding: ClusterRoleBinding, now: number): unknown[] {
  const names = (kind: string) =>
    (binding.subjects ?? [])
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : (s.name ?? '')))
      .join(', ');
  return [
    binding.metadata.name ?? '',
    `${binding.roleRef?.kind ?? ''}/${binding.roleRef?.name ?? ''}`,
    ageSince(binding.metadata.creationTimestamp, now),
    names('User'),
    names('Group'),
    names('ServiceAccount'),
  ];
}

/** clusterRoleBindingStrategy is ClusterRoleBinding's behaviour in the generic registry. */
export const clusterRoleBindingStrategy = {
  namespaced: false,
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: RBAC_GROUP, kind: 'ClusterRoleBinding' },
  prepareForCreate: (binding) => defaultBinding(binding),
  prepareForUpdate: (binding) => defaultBinding(binding),
  validate: (binding) => validateBinding(binding, false),
  validateUpdate: (binding, old) => validateBindingUpdate(binding, old, false),
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description:
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
      priority: 0,
    },
    {
      name: 'Role',
      type: 'string',
      format: '',
      description:
        'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
      priority: 0,
    },
    {
      name: 'Age',
      type: 'string',
      format: '',
      description:
        'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
      priority: 0,
    },
    { name: 'Users', type: 'string', format: '', description: 'Users in the binding', priority: 1 },
    { name: 'Groups', type: 'string', format: '', description: 'Groups in the binding', priority: 1 },
    { name: 'ServiceAccounts', type: 'string', format: '', description: 'ServiceAccounts in the binding', priority: 1 },
  ],
  tableRow: bindingTableRow,
} satisfies ResourceStrategy<ClusterRoleBinding>;

/** clusterRoleBindingsView serves ClusterRoleBindings at rbac.authorization.k8s.io/v1. */
export const clusterRoleBindingsView = {
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  shortNames: [],
  categories: [],
  storeKind: 'cluster/clusterrolebindings',
  strategy: clusterRoleBindingStrategy,
  schemas: CLUSTER_ROLE_BINDING_SCHEMAS,
  schemaName: `${RBAC}.ClusterRoleBinding`,
  listSchemaName: `${RBAC}.ClusterRoleBindingList`,
  toExternal: (binding) => binding,
  toInternal: (binding) => binding,
  selectableFields: (binding) => ({ 'metadata.name': binding.metadata.name ?? '', 'metadata.namespace': '' }),
} satisfies ResourceView<ClusterRoleBinding, ClusterRoleBinding>;
