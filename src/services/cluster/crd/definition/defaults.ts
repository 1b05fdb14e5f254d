/**
 * What the apiserver fills in on a CRD before validating it: v1 defaulting (`singular` from the
 * kind, `listKind` = kind + "List", `conversion.strategy: None`) and the registry strategy's
 * stored versions (on create the status is reset and the storage version recorded; on update the
 * old status is kept and the storage version added).
 */
import type { CustomResourceDefinition } from '../types.ts';

/** defaultCustomResourceDefinition returns a defaulted copy of a CRD being created (`old` undefined) or updated. */
export function defaultCustomResourceDefinition(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): CustomResourceDefinition {
  const copy = structuredClone(crd);
  const spec = copy.spec;
  if (spec === undefined || spec === null || typeof spec !== 'object') return copy;
  const names = spec.names;
  if (names !== undefined && names !== null && typeof names === 'object') {
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (names.singular === undefined || names.singular === '') names.singular = kind.toLowerCase();
    if ((names.listKind === undefined || names.listKind === '') && kind !== '') names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const stored = old === undefined ? [] : [...(copy.status?.storedVersions ?? old.status?.storedVersions ?? [])];
  const storage = Array.isArray(spec.versions) ? spec.versions.find((version) => version?.storage === true) : undefined;
  if (storage !== undefined && !stored.includes(storage.name)) stored.push(storage.name);
  copy.status = old === undefined ? { storedVersions: stored } : { ...(copy.status ?? old.status ?? {}), storedVersions: stored };
  return copy;
}
