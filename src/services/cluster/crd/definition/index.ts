/**
 * PLACEHOLDER of crd-definition's module (branch h-crd-def), with the agreed signatures, so the
 * serving engine compiles and runs before that branch is merged; the merge replaces this file.
 * Only the few checks the engine cannot run without; names are accepted when no other CRD of the
 * group holds them; printer columns read simple dotted paths.
 */
import type { FieldError } from '../../apimachinery/field-errors.ts';
import type { TableColumn } from '../../apimachinery/strategy.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionStatus, CustomResourceDefinitionVersion, CustomResourceSubresourceScale } from '../types.ts';

/** validateCustomResourceDefinition (placeholder) checks the name and the storage version. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition, _old: CustomResourceDefinition | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  const plural = spec.names?.plural ?? '';
  if (crd.metadata.name !== `${plural}.${spec.group ?? ''}`)
    errors.push({ type: 'FieldValueInvalid', field: 'metadata.name', value: crd.metadata.name ?? '', detail: 'must be spec.names.plural+"."+spec.group' });
  if (plural === '') errors.push({ type: 'FieldValueRequired', field: 'spec.names.plural', detail: '' });
  if ((spec.names?.kind ?? '') === '') errors.push({ type: 'FieldValueRequired', field: 'spec.names.kind', detail: '' });
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.filter((version) => version.storage).length !== 1)
    errors.push({ type: 'FieldValueInvalid', field: 'spec.versions', value: '', detail: 'must have exactly one version marked as storage version' });
  return errors;
}

/** acceptNames (placeholder) accepts the names unless another CRD of the group holds the plural or kind. */
export function acceptNames(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[], now: string): CustomResourceDefinitionStatus {
  const names = crd.spec.names;
  const clash = others.find(
    (other) =>
      other.metadata.name !== crd.metadata.name &&
      other.spec.group === crd.spec.group &&
      (other.status?.acceptedNames?.plural === names.plural || other.status?.acceptedNames?.kind === names.kind),
  );
  const storage = crd.spec.versions.find((version) => version.storage)?.name;
  const stored = [...(crd.status?.storedVersions ?? [])];
  if (storage !== undefined && !stored.includes(storage)) stored.push(storage);
  if (clash !== undefined) {
    return {
      conditions: [
        { type: 'NamesAccepted', status: 'False', lastTransitionTime: now, reason: 'PluralConflict', message: `"${names.plural}" is already in use` },
        { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' },
      ],
      acceptedNames: { plural: '', kind: '' },
      storedVersions: stored,
    };
  }
  return {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: { ...names, singular: names.singular ?? names.plural.toLowerCase(), listKind: names.listKind ?? `${names.kind}List` },
    storedVersions: stored,
  };
}

function read(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.split('.').filter((segment) => segment !== '')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** printerColumns (placeholder): Name, the additional columns, or Age when there are none. */
export function printerColumns(version: CustomResourceDefinitionVersion): TableColumn[] {
  const name: TableColumn = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };
  const extra = version.additionalPrinterColumns ?? [];
  if (extra.length === 0)
    return [
      name,
      {
        name: 'Age',
        type: 'date',
        format: '',
        description: 'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp',
        priority: 0,
      },
    ];
  return [
    name,
    ...extra.map((column) => ({
      name: column.name,
      type: column.type as TableColumn['type'],
      format: column.format ?? '',
      description: column.description ?? `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
      priority: column.priority ?? 0,
    })),
  ];
}

/** printerCells (placeholder): one row of printerColumns. */
export function printerCells(version: CustomResourceDefinitionVersion, object: Record<string, unknown>): unknown[] {
  const metadata = (object['metadata'] ?? {}) as { name?: string; creationTimestamp?: string };
  const extra = version.additionalPrinterColumns ?? [];
  if (extra.length === 0) return [metadata.name ?? '', metadata.creationTimestamp ?? null];
  return [metadata.name ?? '', ...extra.map((column) => read(object, column.jsonPath) ?? null)];
}

/** scaleOf (placeholder) reads the replica counts and selector at the scale subresource's paths. */
export function scaleOf(
  scale: CustomResourceSubresourceScale,
  object: Record<string, unknown>,
): { specReplicas: number; statusReplicas: number; selector: string } {
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  const selector = scale.labelSelectorPath === undefined ? '' : read(object, scale.labelSelectorPath);
  return {
    specReplicas: number(read(object, scale.specReplicasPath)),
    statusReplicas: number(read(object, scale.statusReplicasPath)),
    selector: typeof selector === 'string' ? selector : '',
  };
}

/** withSpecReplicas (placeholder) writes the replica count at the spec path into a copy. */
export function withSpecReplicas(scale: CustomResourceSubresourceScale, object: Record<string, unknown>, replicas: number): Record<string, unknown> {
  const copy = structuredClone(object);
  const parts = scale.specReplicasPath.split('.').filter((segment) => segment !== '');
  let current: Record<string, unknown> = copy;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts[parts.length - 1]!] = replicas;
  return copy;
}
