/**
 * The cluster views, generic over what the family serves (read through its faces,
 * services/cluster/public.ts and public-views.ts): every view of its registry (`CLUSTER_VIEWS`,
 * the list discovery is built from, and the stored CRDs' custom resources) as group → kind →
 * namespace → object, each object as YAML with managedFields folded apart; Events; and RBAC both
 * ways — what a subject may do (the authorizer's grants for it), and who may do a verb on a
 * resource (each subject any binding names, asked of the authorizer, with the binding and role it
 * answers with). A kind or binding type the family adds later shows here without a change.
 *
 * The browser shows a viewer (the cluster user a signed-in token acts as) what the cluster's RBAC
 * authorizer lets it `list` (kinds, namespaces, objects, Events) and `get` (one object): a kind
 * it may list nowhere is not listed, and a refused request is the apiserver's Forbidden text as
 * the console's 403.
 */
import { stringify } from 'yaml';
import { CLUSTER_GROUP_PREFIXES } from '../../services/cluster/index.ts';
import {
  apiGroupVocabulary,
  type Attributes,
  Authorizer,
  forbidden,
  forbiddenMessage,
  MASTERS_GROUP,
  type Subject,
  type UserInfo,
} from '../../services/cluster/public.ts';
import {
  type AnyView,
  apiVersionOf,
  CLUSTER_VIEWS,
  clusterNamespaces,
  type DiscoveryResource,
  discoveryResourcesOf,
  type KubeObject,
  storedCustomResourceViews,
} from '../../services/cluster/public-views.ts';
import type { StoredRecord, Store } from '../../store/store.ts';
import { ConsoleError } from './errors.ts';

/** KindSummary is one served resource, once whatever its versions and subresources, as discovery folds them. */
export interface KindSummary {
  readonly group: string;
  /** The version the console shows it in: the first discovery lists (the group's preferred one where it is served). */
  readonly version: string;
  /** Every version it is served in, in discovery order. */
  readonly versions: readonly string[];
  readonly resource: string;
  readonly kind: string;
  readonly shortNames: readonly string[];
  /** Its subresources (`status`, `scale`), part of its page rather than kinds of their own. */
  readonly subresources: readonly string[];
  readonly namespaced: boolean;
  /** Where the viewer may list it: null everywhere, else these namespaces. */
  readonly namespaces: readonly string[] | null;
}

/** SubjectRef is a subject as RBAC names it. */
export interface SubjectRef {
  readonly kind: 'User' | 'Group' | 'ServiceAccount';
  readonly name: string;
  readonly namespace?: string;
}

/** Scope is where a viewer may list a kind: everywhere, or in these namespaces (none: not at all). */
export type Scope = 'all' | readonly string[];

/** userOf is the request identity a subject stands for. */
function userOf(subject: SubjectRef): { name: string; groups: string[] } {
  if (subject.kind === 'Group') return { name: '', groups: [subject.name] };
  if (subject.kind === 'ServiceAccount')
    return {
      name: `system:serviceaccount:${subject.namespace ?? ''}:${subject.name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace ?? ''}`, 'system:authenticated'],
    };
  return { name: subject.name, groups: ['system:authenticated'] };
}

/** ClusterView answers the cluster views' requests. */
export class ClusterView {
  readonly #authorizer: Authorizer;

  constructor(private readonly store: Store) {
    this.#authorizer = new Authorizer(store, apiGroupVocabulary(CLUSTER_GROUP_PREFIXES));
  }

  /** allows asks the authorizer whether `user` may `verb` a resource (by name, in a namespace); call refresh first. */
  #allows(user: UserInfo, verb: string, view: AnyView, namespace: string, name = ''): boolean {
    return this.#authorizer.decide(user, this.#attributes(verb, view, namespace, name)).allowed;
  }

  #attributes(verb: string, view: AnyView, namespace: string, name: string): Attributes {
    return {
      verb,
      resourceRequest: true,
      apiGroup: view.group,
      apiGroupSpelled: view.group,
      resource: view.resource,
      subresource: '',
      name,
      namespace,
      path: '',
    };
  }

  /** refused is the console's 403 carrying the apiserver's Forbidden text for that request. */
  #refused(user: UserInfo, verb: string, view: AnyView, namespace: string, name = ''): ConsoleError {
    const why = forbiddenMessage(user, this.#attributes(verb, view, namespace, name));
    return new ConsoleError(403, forbidden(view.group, view.resource, name, why).message);
  }

  /** #scope is where `user` may list a kind (the namespaces given are the cluster's). */
  #scope(user: UserInfo, view: AnyView, namespaces: readonly string[]): Scope {
    if (this.#allows(user, 'list', view, '')) return 'all';
    if (!view.strategy.namespaced) return [];
    return namespaces.filter((namespace) => this.#allows(user, 'list', view, namespace));
  }

  #namespaces(): Promise<string[]> {
    return clusterNamespaces(this.store);
  }

  /** #views are the served views: the fixed ones and those of the stored CRDs. */
  async #views(): Promise<readonly AnyView[]> {
    const custom = await storedCustomResourceViews(this.store);
    return custom.length === 0 ? CLUSTER_VIEWS : [...CLUSTER_VIEWS, ...custom];
  }

  /**
   * kinds lists every served resource `user` may list somewhere, once (its versions and its
   * subresources folded into it, as discovery folds them: discoveryResourcesOf), in discovery
   * order, with where (null: everywhere).
   */
  async kinds(user: UserInfo): Promise<KindSummary[]> {
    await this.#authorizer.refresh();
    const namespaces = await this.#namespaces();
    const views = await this.#views();
    const byResource = new Map<string, { first: DiscoveryResource; versions: string[]; subresources: string[] }>();
    for (const entry of discoveryResourcesOf(views)) {
      const key = `${entry.group}/${entry.resource}`;
      const known = byResource.get(key) ?? { first: entry, versions: [], subresources: [] };
      known.versions.push(entry.version);
      for (const sub of entry.subresources ?? []) if (!known.subresources.includes(sub.name)) known.subresources.push(sub.name);
      byResource.set(key, known);
    }
    const kinds: KindSummary[] = [];
    for (const { first, versions, subresources } of byResource.values()) {
      const view = resourceView(views, first.group, first.resource);
      if (view === undefined) continue;
      const scope = this.#scope(user, view, namespaces);
      if (scope !== 'all' && scope.length === 0) continue;
      kinds.push({
        group: first.group,
        version: first.version,
        versions,
        resource: first.resource,
        kind: first.kind,
        shortNames: first.shortNames,
        subresources,
        namespaced: first.namespaced,
        namespaces: scope === 'all' ? null : scope,
      });
    }
    return kinds;
  }

  /** view finds a served resource by group and plural name, in its first version (404 otherwise). */
  async view(group: string, resource: string): Promise<AnyView> {
    const view = resourceView(await this.#views(), group, resource);
    if (view === undefined) throw new ConsoleError(404, `The cluster serves no resource ${JSON.stringify(resource)} in group ${JSON.stringify(group)}.`);
    return view;
  }

  /** objects lists the objects of a resource `user` may list (in one namespace, or all it may), by namespace and name; 403 where it may not. */
  async objects(user: UserInfo, view: AnyView, namespace: string | undefined) {
    await this.#authorizer.refresh();
    const scoped = view.strategy.namespaced && namespace !== undefined;
    if (scoped && !this.#allows(user, 'list', view, namespace)) throw this.#refused(user, 'list', view, namespace);
    const scope = scoped ? 'all' : this.#scope(user, view, view.strategy.namespaced ? await this.#namespaces() : []);
    if (scope !== 'all' && scope.length === 0) throw this.#refused(user, 'list', view, '');
    const records = await this.store.list<KubeObject>(view.storeKind, scoped ? { prefix: `${namespace}/` } : {});
    return records.flatMap((record) => {
      const meta = view.toExternal(record.value).metadata;
      if (scope !== 'all' && !scope.includes(meta.namespace ?? '')) return [];
      return [{ name: meta.name ?? '', namespace: meta.namespace ?? null, created: meta.creationTimestamp ?? null, resourceVersion: String(record.revision) }];
    });
  }

  /** object is one object as the API presents it, as YAML with managedFields apart (403 before 404, as the apiserver authorizes first). */
  async object(user: UserInfo, view: AnyView, namespace: string | undefined, name: string) {
    await this.#authorizer.refresh();
    const where = view.strategy.namespaced ? (namespace ?? '') : '';
    if (!this.#allows(user, 'get', view, where, name)) throw this.#refused(user, 'get', view, where, name);
    const key = view.strategy.namespaced ? `${namespace ?? ''}/${name}` : name;
    const record = await this.store.get<KubeObject>(view.storeKind, key);
    if (record === undefined) throw new ConsoleError(404, `${view.resource} ${JSON.stringify(name)} not found.`);
    const object = present(view, record);
    const { managedFields, ...metadata } = object.metadata as KubeObject['metadata'] & { managedFields?: unknown };
    return {
      yaml: stringify({ ...object, metadata }, { lineWidth: 0 }),
      managedFields: managedFields === undefined ? null : stringify(managedFields, { lineWidth: 0 }),
    };
  }

  /** events lists the core Events `user` may list (the newest first), as `kubectl get events` reads them; 403 when it may list them nowhere. */
  async events(user: UserInfo) {
    await this.#authorizer.refresh();
    const view = await this.view('', 'events');
    const scope = this.#scope(user, view, await this.#namespaces());
    if (scope !== 'all' && scope.length === 0) throw this.#refused(user, 'list', view, '');
    const records = await this.store.list<KubeObject>(view.storeKind);
    const events = records.flatMap((record) => {
      const event = present(view, record) as KubeObject & Record<string, unknown>;
      if (scope !== 'all' && !scope.includes(event.metadata.namespace ?? '')) return [];
      const involved = (event['involvedObject'] ?? {}) as Record<string, unknown>;
      return [
        {
          namespace: event.metadata.namespace ?? '',
          name: event.metadata.name ?? '',
          type: String(event['type'] ?? ''),
          reason: String(event['reason'] ?? ''),
          message: String(event['message'] ?? ''),
          regarding: `${String(involved['kind'] ?? '')}/${String(involved['name'] ?? '')}`,
          count: Number(event['count'] ?? 1),
          time: String(event['lastTimestamp'] ?? event['eventTime'] ?? event.metadata.creationTimestamp ?? ''),
          revision: record.revision,
        },
      ];
    });
    return events.sort((a, b) => b.revision - a.revision);
  }

  /** subjects lists every subject some binding names (from every stored kind whose objects have `subjects`). */
  async subjects(): Promise<SubjectRef[]> {
    const found = new Map<string, SubjectRef>();
    for (const kind of new Set((await this.#views()).map((view) => view.storeKind))) {
      for (const record of await this.store.list<{ subjects?: Subject[] }>(kind)) {
        for (const subject of record.value.subjects ?? []) {
          if (subject.kind !== 'User' && subject.kind !== 'Group' && subject.kind !== 'ServiceAccount') continue;
          const ref: SubjectRef = {
            kind: subject.kind,
            name: subject.name ?? '',
            ...(subject.kind === 'ServiceAccount' ? { namespace: subject.namespace ?? '' } : {}),
          };
          found.set(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`, ref);
        }
      }
    }
    found.set(`Group//${MASTERS_GROUP}`, { kind: 'Group', name: MASTERS_GROUP });
    return [...found.values()].sort((a, b) => (a.kind + a.name < b.kind + b.name ? -1 : 1));
  }

  /** whoCan lists each subject the authorizer allows `verb` on `resource` (in `namespace`), with its reason. */
  async whoCan(verb: string, group: string, resource: string, namespace: string) {
    await this.#authorizer.refresh();
    const attributes: Attributes = {
      verb,
      resourceRequest: true,
      apiGroup: group,
      apiGroupSpelled: group,
      resource,
      subresource: '',
      name: '',
      namespace,
      path: '',
    };
    const allowed: { subject: SubjectRef; reason: string }[] = [];
    for (const subject of await this.subjects()) {
      const decision = this.#authorizer.decide(userOf(subject), attributes);
      if (decision.allowed) allowed.push({ subject, reason: decision.reason === '' ? `member of ${MASTERS_GROUP}: allowed everything` : decision.reason });
    }
    return allowed;
  }

  /**
   * mayDo lists what a subject is granted: each binding that applies, its role, and the role's
   * rules — the ClusterRoleBindings, then the RoleBindings of every namespace. `as` is the
   * identity asked about (a signed-in viewer asking about itself gives its own, groups and all).
   */
  async mayDo(subject: SubjectRef, as: UserInfo = userOf(subject)) {
    await this.#authorizer.refresh();
    const user = as;
    if (user.groups.includes(MASTERS_GROUP)) return { everything: true, grants: [] };
    const cluster = this.#authorizer.grantsFor(user, '').granted;
    const granted = [...cluster];
    for (const namespace of await this.#namespaces()) {
      // A namespace's grants are the cluster-wide ones followed by its RoleBindings' own.
      granted.push(...this.#authorizer.grantsFor(user, namespace).granted.slice(cluster.length));
    }
    return { everything: false, grants: granted.map((each) => ({ source: each.source, rules: each.rules })) };
  }
}

/** resourceView is a resource's own view (not one of its subresources') in the first version served. */
function resourceView(views: readonly AnyView[], group: string, resource: string): AnyView | undefined {
  return views.find((each) => each.group === group && each.resource === resource && each.subresource === undefined);
}

/** present is a stored object as the API answers it: the view's form with apiVersion, kind and resourceVersion. */
function present(view: AnyView, record: StoredRecord<KubeObject>): KubeObject {
  const external = view.toExternal(record.value);
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = external;
  return { apiVersion: apiVersionOf(view), kind: view.kind, metadata: { ...metadata, resourceVersion: String(record.revision) }, ...rest } as KubeObject;
}
