/**
 * `apiextensions.k8s.io/v1` CustomResourceDefinition as a resource of the generic registry:
 * cluster-scoped, short names `crd`/`crds`, category `api-extensions`, a `status` subresource, and
 * `kubectl get crd`'s `NAME CREATED AT` columns. The CRD itself is validated by crd/definition;
 * its status (names accepted, Established) is the naming controller's, written in the same
 * transaction as the CRD (crd/lifecycle.ts), as a single apiserver establishes at once.
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { CRD_LIST_SCHEMA, CRD_SCHEMA, CRD_SCHEMAS } from './crd-schemas.ts';
import { defaultCustomResourceDefinition, validateCustomResourceDefinition, validateCustomResourceDefinitionStatus } from './definition/index.ts';
import type { CustomResourceDefinition } from './types.ts';
import { CREATED_AT_COLUMN, NAME_COLUMN } from '../builtin/behaviour.ts';

/** CRD_STORE_KIND is where CustomResourceDefinitions are stored (keys: their names). */
export const CRD_STORE_KIND = 'cluster/customresourcedefinitions';

/** APIEXTENSIONS_GROUP is the CRD's API group. */
export const APIEXTENSIONS_GROUP = 'apiextensions.k8s.io';

/** specText is the CRD's spec with keys sorted, whose change bumps `generation`. */
function specText(crd: CustomResourceDefinition): string {
  return JSON.stringify(crd.spec ?? null, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** validateDefinition runs crd/definition's validation on a CRD whose spec may be missing from the body. */
function validateDefinition(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  const spec = crd.spec ?? {};
  return validateCustomResourceDefinition(
    { ...crd, spec: { ...spec, names: spec.names ?? {}, versions: spec.versions ?? [] } as CustomResourceDefinition['spec'] },
    old,
  );
}

/** crdStrategy is CustomResourceDefinition's behaviour: spec from the client, status from the controllers. */
export const crdStrategy = {
  namespaced: false,
  nameRule: 'dns-subdomain',
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  invalidKind: { group: APIEXTENSIONS_GROUP, kind: 'CustomResourceDefinition' },
  prepareForCreate(crd) {
    // v1 defaulting; the status is the controllers' (lifecycle.ts writes it with the CRD) but for the stored versions.
    const { metadata: _metadata, ...defaulted } = defaultCustomResourceDefinition({ ...crd, status: {} }, undefined);
    Object.assign(crd, defaulted);
    crd.metadata.generation = 1;
  },
  prepareForUpdate(crd, old) {
    const { metadata: _metadata, ...defaulted } = defaultCustomResourceDefinition({ ...crd, status: structuredClone(old.status ?? {}) }, old);
    Object.assign(crd, defaulted);
    const generation = old.metadata.generation ?? 1;
    crd.metadata.generation = specText(crd) === specText(old) ? generation : generation + 1;
  },
  validate: (crd) => validateDefinition(crd, undefined),
  validateUpdate: (crd, old) => validateDefinition(crd, old),
  warnings: () => [],
  canonicalize: () => undefined,
  tableColumns: [NAME_COLUMN, CREATED_AT_COLUMN],
  tableRow: (crd) => [crd.metadata.name ?? '', crd.metadata.creationTimestamp ?? ''],
} satisfies ResourceStrategy<CustomResourceDefinition>;

/** crdStatusStrategy is the `/status` subresource's: only `status` changes, `generation` never. */
const crdStatusStrategy = {
  ...crdStrategy,
  prepareForCreate: () => undefined,
  prepareForUpdate(crd, old) {
    const { status } = crd;
    const managedFields = crd.metadata.managedFields;
    crd.spec = structuredClone(old.spec);
    crd.metadata = { ...structuredClone(old.metadata), ...(managedFields === undefined ? {} : { managedFields }) };
    if (status === undefined) delete crd.status;
    else crd.status = status;
  },
  // A /status write checks the status alone (ValidateUpdateCustomResourceDefinitionStatus).
  validateUpdate: (crd) => validateCustomResourceDefinitionStatus(crd),
} satisfies ResourceStrategy<CustomResourceDefinition>;

/** crdView serves CustomResourceDefinitions at apiextensions.k8s.io/v1. */
export const crdView = {
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  resource: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  storeKind: CRD_STORE_KIND,
  strategy: crdStrategy,
  schemas: CRD_SCHEMAS,
  schemaName: CRD_SCHEMA,
  listSchemaName: CRD_LIST_SCHEMA,
  toExternal: (crd) => crd,
  toInternal: (crd) => crd,
  selectableFields: (crd) => ({ 'metadata.name': crd.metadata.name ?? '' }),
} satisfies ResourceView<CustomResourceDefinition, CustomResourceDefinition>;

/** crdStatusView is the CRD's `/status` subresource. */
export const crdStatusView = { ...crdView, subresource: 'status', strategy: crdStatusStrategy } satisfies ResourceView<
  CustomResourceDefinition,
  CustomResourceDefinition
>;
