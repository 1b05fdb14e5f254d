/**
 * v1 Namespace: the scope of namespaced objects. `default`, `kube-system`, `kube-public` and
 * `kube-node-lease` exist from the start; the first three may not be deleted (as on a real
 * cluster). Deleting a namespace moves it to `Terminating` (with a deletionTimestamp); then, as
 * the namespace controller does, everything in it is removed and the namespace goes (runtime.ts).
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import { isDns1123Label } from '../apimachinery/name-rules.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { CORE_V1_SCHEMAS, NAMESPACE_SCHEMA_NAME } from './core-schemas.ts';

/** Namespace is the stored and served Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

/** INITIAL_NAMESPACES exist in every new cluster. */
export const INITIAL_NAMESPACES: readonly string[] = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** PROTECTED_NAMESPACES may never be deleted. */
export const PROTECTED_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** NAMESPACE_NAME_LABEL is the label the server keeps equal to the namespace's name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function validateName(namespace: Namespace): FieldError[] {
  const name = namespace.metadata.name ?? '';
  if (name === '') return [];
  return isDns1123Label(name).map((problem) => invalid('metadata.name', name, problem));
}

function prepare(namespace: Namespace): void {
  namespace.status = { phase: 'Active' };
  namespace.spec = { finalizers: namespace.spec?.finalizers ?? ['kubernetes'] };
  const name = namespace.metadata.name;
  if (name !== undefined && name !== '') namespace.metadata.labels = { ...namespace.metadata.labels, [NAMESPACE_NAME_LABEL]: name };
}

/** namespaceStrategy is Namespace's behaviour in the generic registry. */
export const namespaceStrategy = {
  namespaced: false,
  nameRule: 'path-segment',
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  invalidKind: { group: '', kind: 'Namespace' },
  prepareForCreate: (namespace) => prepare(namespace),
  prepareForUpdate: (namespace, old) => {
    // Status and spec.finalizers change only through their subresources.
    namespace.status = old.status ?? { phase: 'Active' };
    namespace.spec = old.spec ?? { finalizers: ['kubernetes'] };
    const name = namespace.metadata.name;
    if (name !== undefined && name !== '') namespace.metadata.labels = { ...namespace.metadata.labels, [NAMESPACE_NAME_LABEL]: name };
  },
  validate: validateName,
  validateUpdate: validateName,
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    { name: 'Status', type: 'string', format: '', description: 'The status of the namespace', priority: 0 },
    {
      name: 'Age',
      type: 'string',
      format: '',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
      priority: 0,
    },
  ],
  tableRow: (namespace, now) => [namespace.metadata.name ?? '', namespace.status?.phase ?? '', ageSince(namespace.metadata.creationTimestamp, now)],
} satisfies ResourceStrategy<Namespace>;

/** NAMESPACE_STORE_KIND is where namespaces live. */
export const NAMESPACE_STORE_KIND = 'cluster/namespaces';

/** namespacesView serves namespaces at core v1. */
export const namespacesView = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  shortNames: ['ns'],
  categories: [],
  storeKind: NAMESPACE_STORE_KIND,
  strategy: namespaceStrategy,
  schemas: CORE_V1_SCHEMAS,
  schemaName: NAMESPACE_SCHEMA_NAME,
  listSchemaName: 'io.k8s.api.core.v1.NamespaceList',
  toExternal: (namespace) => namespace,
  toInternal: (namespace) => namespace,
  selectableFields: (namespace) => ({
    'metadata.name': namespace.metadata.name ?? '',
    'metadata.namespace': '',
    'status.phase': namespace.status?.phase ?? '',
  }),
} satisfies ResourceView<Namespace, Namespace>;
