/**
 * Which APIServices a cluster has without anyone creating them, as kube-apiserver 1.32 registers
 * them: a local APIService (no `spec.service`) for every group-version it serves, named
 * `<version>.<group>` (`v1.` for the core group), with upstream's group and version priorities
 * (`cmd/kube-apiserver/app/aggregator.go` and `pkg/controlplane/apiserver/aggregator.go`,
 * apiVersionPriorities) and the autoregister controller's label `automanaged: onstart`; and
 * one for every served version of a CustomResourceDefinition (the crdRegistrationController:
 * `automanaged: "true"`, group priority 1000, version priority 100), removed when the version
 * is no longer served. The aggregator's own group (apiregistration.k8s.io) has none.
 */

/** AUTOMANAGED_LABEL is kube-aggregator's AutoRegisterManagedLabel. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** GroupVersion is one served group-version (`''` is the core group). */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** API_SERVICE_PRIORITIES are upstream's [group priority, version priority] of the group-versions a default 1.32 apiserver serves. */
const API_SERVICE_PRIORITIES: Readonly<Record<string, readonly [number, number]>> = {
  '/v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};

/** CUSTOM_RESOURCE_PRIORITIES are the crdRegistrationController's: CRDs rank low, and their versions sort kube-like among themselves. */
const CUSTOM_RESOURCE_PRIORITIES = [1000, 100] as const;

/** apiServiceName is `<version>.<group>`. */
export function apiServiceName(groupVersion: GroupVersion): string {
  return `${groupVersion.version}.${groupVersion.group}`;
}

function apiServiceOf(groupVersion: GroupVersion, managed: 'onstart' | 'true', [groupPriority, versionPriority]: readonly [number, number]) {
  return {
    metadata: { name: apiServiceName(groupVersion), labels: { [AUTOMANAGED_LABEL]: managed } },
    // `group` is omitempty: the core group's APIService has none.
    spec: {
      ...(groupVersion.group === '' ? {} : { group: groupVersion.group }),
      version: groupVersion.version,
      groupPriorityMinimum: groupPriority,
      versionPriority,
    },
  };
}

/** localApiServices are the APIServices of the built-in group-versions served (one per group-version; those upstream has no priority for are skipped, as makeAPIService skips them). */
export function localApiServices(served: Iterable<GroupVersion>): ReturnType<typeof apiServiceOf>[] {
  const seen = new Set<string>();
  const out: ReturnType<typeof apiServiceOf>[] = [];
  for (const groupVersion of served) {
    const key = `${groupVersion.group}/${groupVersion.version}`;
    const priorities = API_SERVICE_PRIORITIES[key];
    if (priorities === undefined || seen.has(key)) continue;
    seen.add(key);
    out.push(apiServiceOf(groupVersion, 'onstart', priorities));
  }
  return out;
}

/** customResourceApiServices are the APIServices of the custom resources' group-versions served. */
export function customResourceApiServices(served: Iterable<GroupVersion>): ReturnType<typeof apiServiceOf>[] {
  const seen = new Set<string>();
  const out: ReturnType<typeof apiServiceOf>[] = [];
  for (const groupVersion of served) {
    const key = `${groupVersion.group}/${groupVersion.version}`;
    if (seen.has(key) || API_SERVICE_PRIORITIES[key] !== undefined) continue;
    seen.add(key);
    out.push(apiServiceOf(groupVersion, 'true', CUSTOM_RESOURCE_PRIORITIES));
  }
  return out;
}

/**
 * inDiscoveryOrder orders resources by their group as the aggregator's discovery lists groups:
 * its own group (apiregistration.k8s.io) first, then by the APIServices' group priority, highest
 * first, then by APIService name (`<version>.<group>`); the order within a group is kept. Custom
 * resources' groups rank with the CRDs' priority.
 */
export function inDiscoveryOrder<T extends GroupVersion>(entries: readonly T[]): T[] {
  const keyOf = new Map<string, readonly [number, string]>();
  for (const entry of entries) {
    if (keyOf.has(entry.group)) continue;
    const priority =
      entry.group === 'apiregistration.k8s.io'
        ? Number.POSITIVE_INFINITY
        : (API_SERVICE_PRIORITIES[`${entry.group}/${entry.version}`]?.[0] ?? CUSTOM_RESOURCE_PRIORITIES[0]);
    keyOf.set(entry.group, [priority, apiServiceName(entry)]);
  }
  return [...entries].sort((a, b) => {
    const [pa, na] = keyOf.get(a.group)!;
    const [pb, nb] = keyOf.get(b.group)!;
    return pb - pa || (na < nb ? -1 : na > nb ? 1 : 0);
  });
}
