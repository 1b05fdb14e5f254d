/**
 * v1 ServiceAccount (short name `sa`): an identity for processes, whose tokens come from the
 * TokenRequest subresource (`authentication/token-request.ts`). The object itself is plain
 * storage with the upstream validation (a DNS-subdomain name, the secret and image-pull-secret
 * references); the `default` account of every namespace is the ServiceAccount controller's work
 * (`service-account-controller.ts`), as on a real cluster.
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { SchemaSet } from '../apimachinery/schema.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { CORE_V1_SCHEMAS } from './core-schemas.ts';
import { listSchema, OBJECT_REFERENCE, TYPE_FIELDS } from './meta-schemas.ts';

/** ServiceAccount is the stored and served ServiceAccount. */
export interface ServiceAccount extends KubeObject {
  secrets?: Record<string, unknown>[];
  imagePullSecrets?: { name?: string }[];
  automountServiceAccountToken?: boolean;
}

/** SERVICE_ACCOUNT_STORE_KIND is where ServiceAccounts live (keys `namespace/name`). */
export const SERVICE_ACCOUNT_STORE_KIND = 'cluster/serviceaccounts';

/** DEFAULT_SERVICE_ACCOUNT is the account the ServiceAccount controller keeps in every namespace. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

const CORE = 'io.k8s.api.core.v1';

/** SERVICE_ACCOUNT_SCHEMA_NAME is the component name of ServiceAccount. */
export const SERVICE_ACCOUNT_SCHEMA_NAME = `${CORE}.ServiceAccount`;

const SECRETS_DESCRIPTION =
  'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret';

/** SERVICE_ACCOUNT_SCHEMAS are ServiceAccount's wire types, beside the rest of core v1. */
export const SERVICE_ACCOUNT_SCHEMAS: SchemaSet = {
  ...CORE_V1_SCHEMAS,
  [SERVICE_ACCOUNT_SCHEMA_NAME]: {
    type: 'object',
    goName: 'ServiceAccount',
    description:
      'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets',
    properties: {
      ...TYPE_FIELDS,
      secrets: { type: 'array', items: { $ref: OBJECT_REFERENCE }, patchStrategy: 'merge', patchMergeKey: 'name', description: SECRETS_DESCRIPTION },
      imagePullSecrets: {
        type: 'array',
        items: { $ref: `${CORE}.LocalObjectReference` },
        listType: 'atomic',
        description:
          'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount. ImagePullSecrets are distinct from Secrets because Secrets can be mounted in the pod, but ImagePullSecrets are only accessed by the kubelet. More info: https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod',
      },
      automountServiceAccountToken: {
        type: 'boolean',
        description:
          'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.',
      },
    },
  },
  [`${CORE}.LocalObjectReference`]: {
    type: 'object',
    goName: 'LocalObjectReference',
    description: 'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
    mapType: 'atomic',
    properties: {
      name: {
        type: 'string',
        description:
          'Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names',
      },
    },
  },
  [`${CORE}.ServiceAccountList`]: listSchema('ServiceAccountList', SERVICE_ACCOUNT_SCHEMA_NAME, 'ServiceAccountList is a list of ServiceAccount objects'),
};

// Upstream ValidateServiceAccount checks only the object meta (name: DNS subdomain); the
// references are free-form (a secret named in `secrets` need not exist).
function validate(_account: ServiceAccount): FieldError[] {
  return [];
}

/** serviceAccountStrategy is ServiceAccount's behaviour in the generic registry. */
export const serviceAccountStrategy = {
  namespaced: true,
  nameRule: 'dns-subdomain',
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  invalidKind: { group: '', kind: 'ServiceAccount' },
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  validate,
  validateUpdate: validate,
  warnings: () => [],
  canonicalize: () => undefined,
  // The apiserver's printer (pkg/printers/internalversion): NAME SECRETS AGE, the secrets counted.
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    { name: 'Secrets', type: 'string', format: '', description: SECRETS_DESCRIPTION, priority: 0 },
    {
      name: 'Age',
      type: 'string',
      format: '',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
      priority: 0,
    },
  ],
  tableRow: (account, now) => [account.metadata.name ?? '', (account.secrets ?? []).length, ageSince(account.metadata.creationTimestamp, now)],
} satisfies ResourceStrategy<ServiceAccount>;

/** serviceAccountsView serves ServiceAccounts at core v1. */
export const serviceAccountsView = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  shortNames: ['sa'],
  categories: [],
  storeKind: SERVICE_ACCOUNT_STORE_KIND,
  // As the 1.32 ServiceAccount storage (ReturnDeletedObject): a DELETE answers the ServiceAccount.
  returnsDeletedObject: true,
  strategy: serviceAccountStrategy,
  schemas: SERVICE_ACCOUNT_SCHEMAS,
  schemaName: SERVICE_ACCOUNT_SCHEMA_NAME,
  listSchemaName: `${CORE}.ServiceAccountList`,
  toExternal: (account) => account,
  toInternal: (account) => account,
  selectableFields: (account) => ({ 'metadata.name': account.metadata.name ?? '', 'metadata.namespace': account.metadata.namespace ?? '' }),
} satisfies ResourceView<ServiceAccount, ServiceAccount>;
