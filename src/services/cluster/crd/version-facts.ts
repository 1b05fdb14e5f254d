/**
 * What a CRD says about its versions beside their schemas, as the apiextensions apiserver derives
 * it: the Kubernetes-aware version order (apimachinery `version.CompareKubeAwareVersionStrings`),
 * the default deprecation warning naming the version to use instead (`defaultDeprecationWarning`
 * of the CRD handler), and what discovery lists: the storage version hash
 * (`discovery.StorageVersionHash`) and the verbs, in the discovery controller's order.
 */
import { createHash } from 'node:crypto';
import type { CustomResourceDefinitionSpec } from './types.ts';

/** versionPriority orders Kubernetes versions as discovery does: GA, then beta, then alpha, newer first; others last by name. */
export function versionPriority(a: string, b: string): number {
  const parse = (name: string): [number, number, number, string] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
    if (match === null) return [3, 0, 0, name];
    const stage = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
    return [stage, -Number(match[1]), -Number(match[3] ?? 0), name];
  };
  const [x, y] = [parse(a), parse(b)];
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return (x[index] as number) - (y[index] as number);
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

/**
 * defaultDeprecationWarning is the warning of a deprecated version without its own
 * `deprecationWarning`: `<group>/<v> <Kind> is deprecated`, followed by `; use <group>/<w> <Kind>`
 * where w is the highest-priority version that is served, not deprecated, and of higher priority
 * than v (none is named when there is no such version).
 */
export function defaultDeprecationWarning(deprecated: string, spec: CustomResourceDefinitionSpec): string {
  const message = `${spec.group}/${deprecated} ${spec.names.kind} is deprecated`;
  const newer = spec.versions
    .filter((version) => version.served && version.deprecated !== true && versionPriority(version.name, deprecated) < 0)
    .map((version) => version.name)
    .sort(versionPriority);
  return newer.length === 0 ? message : `${message}; use ${spec.group}/${newer[0]} ${spec.names.kind}`;
}

/**
 * storageVersionHash is what discovery lists for a resource stored in `group/version` as `kind`:
 * the base64 of the first 8 bytes of the SHA-256 of `group/version/kind` (the apiserver's
 * `discovery.StorageVersionHash`).
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * crdStorageVersionHash is a CRD's hash for discovery: the storage version's, with the kind the
 * spec names, and only when the storage version is served (the discovery controller computes it
 * while walking the served versions).
 */
export function crdStorageVersionHash(spec: CustomResourceDefinitionSpec): string | undefined {
  const storage = spec.versions.find((version) => version.served && version.storage);
  return storage === undefined ? undefined : storageVersionHash(spec.group, storage.name, spec.names.kind);
}

/** CUSTOM_RESOURCE_VERBS are a custom resource's verbs as the discovery controller lists them (its order, not sorted). */
const CUSTOM_RESOURCE_VERBS: readonly string[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** TERMINATING_VERBS are what it lists while the CRD is being deleted. */
const TERMINATING_VERBS: readonly string[] = ['delete', 'deletecollection', 'get', 'list', 'watch'];

/** customResourceVerbs are the verbs discovery lists for a CRD's resource: fewer once its Terminating condition is true. */
export function customResourceVerbs(conditions: readonly { readonly type: string; readonly status: string }[]): readonly string[] {
  return conditions.some((condition) => condition.type === 'Terminating' && condition.status === 'True') ? TERMINATING_VERBS : CUSTOM_RESOURCE_VERBS;
}
