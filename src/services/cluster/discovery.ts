/**
 * API discovery, generated from the served views: aggregated discovery v2 (what kubectl 1.32
 * asks for first) and the legacy APIVersions / APIGroupList / APIGroup / APIResourceList forms.
 */
import type { Spelling, Vocabulary } from '../../core/identifiers.ts';
import { parseAccept } from './apimachinery/content-negotiation.ts';
import type { AnyView } from './apimachinery/strategy.ts';

/** ALL_VERBS are the verbs every stored resource here supports (namespaces lack deletecollection, as upstream). */
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** DiscoveryResource is one resource as discovery lists it: a stored view, or a create-only virtual resource such as an access review. */
export type DiscoveryResource = Pick<AnyView, 'group' | 'version' | 'resource' | 'singular' | 'kind' | 'shortNames' | 'categories' | 'storageVersionHash'> & {
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  /** The subresources served under it (`scale`, `status`), each with get, patch and update. */
  readonly subresources?: readonly DiscoverySubresource[];
};

/** DiscoverySubresource is one subresource, with its wire type when it is not the resource's own (`autoscaling/v1` Scale). */
export interface DiscoverySubresource {
  readonly name: string;
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
}

/** SUBRESOURCE_VERBS are the verbs of a status subresource. */
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

/** discoveryResourcesOf lists stored views with their subresources folded into the resource they belong to. */
export function discoveryResourcesOf(views: readonly AnyView[]): DiscoveryResource[] {
  const subresources = new Map<string, DiscoverySubresource[]>();
  for (const view of views) {
    if (view.subresource === undefined) continue;
    const key = `${view.group}/${view.version}/${view.resource}`;
    const sub = { name: view.subresource, ...(view.responseKind === undefined ? {} : { responseKind: view.responseKind }) };
    subresources.set(key, [...(subresources.get(key) ?? []), sub]);
  }
  return views
    .filter((view) => view.subresource === undefined)
    .map((view) => {
      const subs = subresources.get(`${view.group}/${view.version}/${view.resource}`);
      return subs === undefined ? discoveryResourceOf(view) : { ...discoveryResourceOf(view), subresources: subs };
    });
}

/** discoveryResourceOf lists a stored view with every verb the generic registry serves for it. */
export function discoveryResourceOf(view: AnyView): DiscoveryResource {
  return {
    group: view.group,
    version: view.version,
    resource: view.resource,
    singular: view.singular,
    kind: view.kind,
    namespaced: view.strategy.namespaced,
    verbs: view.discoveryVerbs ?? (view.resource === 'namespaces' ? ALL_VERBS.filter((verb) => verb !== 'deletecollection') : ALL_VERBS),
    shortNames: view.shortNames,
    categories: view.categories,
    ...(view.storageVersionHash === undefined ? {} : { storageVersionHash: view.storageVersionHash }),
  };
}

/** AggregatedForm is the aggregated discovery version a client accepts, if any. */
export type AggregatedForm = 'v2' | 'v2beta1' | undefined;

/** aggregatedFormOf reads whether the Accept header asks for aggregated discovery first. */
export function aggregatedFormOf(accept: string | undefined): AggregatedForm {
  for (const range of parseAccept(accept)) {
    if (range.params['as'] === 'APIGroupDiscoveryList' && range.params['g'] === 'apidiscovery.k8s.io') {
      if (range.params['v'] === 'v2' || range.params['v'] === 'v2beta1') return range.params['v'];
      continue;
    }
    if (range.type === 'application/json' || range.type === '*/*') return undefined;
  }
  return undefined;
}

/** Discovery answers the discovery documents for a set of views. */
export class Discovery {
  /** The resources, each group-version's in alphabetical order as the apiserver lists them. */
  readonly resources: readonly DiscoveryResource[];

  constructor(
    resources: readonly DiscoveryResource[],
    readonly groups: Vocabulary,
    readonly spelling: Spelling,
  ) {
    const firstSeen = new Map<string, number>();
    for (const entry of resources) if (!firstSeen.has(`${entry.group}/${entry.version}`)) firstSeen.set(`${entry.group}/${entry.version}`, firstSeen.size);
    const rank = (entry: DiscoveryResource) => firstSeen.get(`${entry.group}/${entry.version}`)!;
    this.resources = [...resources].sort((a, b) => rank(a) - rank(b) || a.resource.localeCompare(b.resource));
  }

  #groupName(group: string): string {
    return group === '' ? '' : this.groups.spell(group, this.spelling);
  }

  #namedGroups(): string[] {
    return [...new Set(this.resources.filter((entry) => entry.group !== '').map((entry) => entry.group))];
  }

  #versions(group: string): string[] {
    return [...new Set(this.resources.filter((entry) => entry.group === group).map((entry) => entry.version))];
  }

  /** aggregated renders the APIGroupDiscoveryList for `/api` (core) or `/apis` (named groups). */
  aggregated(core: boolean, form: 'v2' | 'v2beta1'): Record<string, unknown> {
    const groups = core ? [''] : this.#namedGroups();
    return {
      kind: 'APIGroupDiscoveryList',
      apiVersion: `apidiscovery.k8s.io/${form}`,
      metadata: {},
      items: groups.map((group) => ({
        metadata: { name: this.#groupName(group), creationTimestamp: null },
        versions: this.#versions(group).map((version) => ({
          version,
          resources: this.resources
            .filter((entry) => entry.group === group && entry.version === version)
            .map((entry) => ({
              resource: entry.resource,
              responseKind: { group: '', version: '', kind: entry.kind },
              scope: entry.namespaced ? 'Namespaced' : 'Cluster',
              singularResource: entry.singular,
              verbs: entry.verbs,
              ...(entry.shortNames.length === 0 ? {} : { shortNames: entry.shortNames }),
              ...(entry.categories.length === 0 ? {} : { categories: entry.categories }),
              ...(entry.subresources === undefined
                ? {}
                : {
                    subresources: entry.subresources.map((subresource) => ({
                      subresource: subresource.name,
                      responseKind: subresource.responseKind ?? { group: '', version: '', kind: entry.kind },
                      verbs: SUBRESOURCE_VERBS,
                    })),
                  }),
            })),
          freshness: 'Current',
        })),
      })),
    };
  }

  /** apiVersions is the legacy `/api` answer. */
  apiVersions(serverAddress: string): Record<string, unknown> {
    return { kind: 'APIVersions', versions: this.#versions(''), serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  }

  #apiGroup(group: string): Record<string, unknown> {
    const name = this.#groupName(group);
    const versions = this.#versions(group).map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions, preferredVersion: versions[0] };
  }

  /** apiGroupList is the legacy `/apis` answer. */
  apiGroupList(): Record<string, unknown> {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.#namedGroups().map((group) => this.#apiGroup(group)) };
  }

  /** apiGroup is `/apis/<group>`; undefined for an unknown group. */
  apiGroup(group: string): Record<string, unknown> | undefined {
    const canonical = this.groups.canonical(group);
    if (!this.#namedGroups().includes(canonical)) return undefined;
    return { kind: 'APIGroup', apiVersion: 'v1', ...this.#apiGroup(canonical) };
  }

  /** apiResourceList is `/api/v1` or `/apis/<group>/<version>`; undefined when nothing is served there. */
  apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
    const canonical = group === '' ? '' : this.groups.canonical(group);
    const entries = this.resources.filter((entry) => entry.group === canonical && entry.version === version);
    if (entries.length === 0) return undefined;
    const name = this.#groupName(canonical);
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: name === '' ? version : `${name}/${version}`,
      resources: entries.flatMap((entry) => [
        {
          name: entry.resource,
          singularName: entry.singular,
          namespaced: entry.namespaced,
          kind: entry.kind,
          verbs: entry.verbs,
          ...(entry.shortNames.length === 0 ? {} : { shortNames: entry.shortNames }),
          ...(entry.categories.length === 0 ? {} : { categories: entry.categories }),
          ...(entry.storageVersionHash === undefined ? {} : { storageVersionHash: entry.storageVersionHash }),
        },
        // The legacy list names each subresource as `<resource>/<subresource>`, with an empty singular name.
        ...(entry.subresources ?? []).map((subresource) => ({
          name: `${entry.resource}/${subresource.name}`,
          singularName: '',
          namespaced: entry.namespaced,
          ...(subresource.responseKind === undefined
            ? { kind: entry.kind }
            : { group: subresource.responseKind.group, version: subresource.responseKind.version, kind: subresource.responseKind.kind }),
          verbs: SUBRESOURCE_VERBS,
        })),
      ]),
    };
  }
}
