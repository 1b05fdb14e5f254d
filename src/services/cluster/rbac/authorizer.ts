/**
 * The RBAC authorizer (upstream `plugin/pkg/auth/authorizer/rbac` and the rule resolver of
 * `pkg/registry/rbac/validation/rule.go`): for a request in namespace N, every ClusterRoleBinding
 * and then the RoleBindings of N are visited; a RoleBinding grants a Role of N or a ClusterRole,
 * either only inside N. A binding applies to a user by name, by one of its groups, or as a service
 * account (`system:serviceaccount:NS:NAME`; a RoleBinding's ServiceAccount subject without a
 * namespace means the binding's). A binding whose role is missing grants nothing and is reported
 * as a resolution error (the 403's `RBAC: …` suffix). `system:masters` is allowed everything, as
 * the real server's privileged-group authorizer does. Roles and bindings are held in memory and
 * brought up to date from the store's change feed before each decision, so a binding written a
 * moment ago already counts.
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import { BoundedMap } from '../../../lib/bounded-map.ts';
import { CompactedError, type Store } from '../../../store/index.ts';
import type { UserInfo } from '../cluster-auth.ts';
import type { ClusterRole, PolicyRule } from '../resources/cluster-roles.ts';
import type { ClusterRoleBinding, Subject } from '../resources/cluster-role-bindings.ts';
import type { RoleBinding } from '../resources/role-bindings.ts';
import type { Role } from '../resources/roles.ts';
import { ruleAllows, type Attributes } from './policy-rules.ts';

/**
 * CLUSTER_ROLE_STORE_KIND, CLUSTER_ROLE_BINDING_STORE_KIND, ROLE_STORE_KIND and
 * ROLE_BINDING_STORE_KIND are where the RBAC objects live (the views' storeKind; spelled here so
 * the authorizer, loaded with the family, does not load the resources' schemas with it).
 */
export const CLUSTER_ROLE_STORE_KIND = 'cluster/clusterroles';
export const CLUSTER_ROLE_BINDING_STORE_KIND = 'cluster/clusterrolebindings';
export const ROLE_STORE_KIND = 'cluster/roles';
export const ROLE_BINDING_STORE_KIND = 'cluster/rolebindings';

/** RBAC_STORE_KINDS are the four kinds the authorizer follows on the change feed. */
export const RBAC_STORE_KINDS: readonly string[] = [CLUSTER_ROLE_STORE_KIND, CLUSTER_ROLE_BINDING_STORE_KIND, ROLE_STORE_KIND, ROLE_BINDING_STORE_KIND];

/** MASTERS_GROUP is the group every request of which is allowed. */
export const MASTERS_GROUP = 'system:masters';

/** Decision is an authorization answer with the real reason text. */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** GrantedRules are the rules one binding gives a user, with the text naming the source. */
export interface GrantedRules {
  readonly source: string;
  readonly rules: readonly PolicyRule[];
}

/** Grants are what a user holds in one namespace (`''`: cluster-wide only), and the bindings that could not be resolved. */
export interface Grants {
  readonly granted: readonly GrantedRules[];
  /** Resolution errors (`role.rbac.authorization.k8s.io "x" not found`), in visiting order. */
  readonly errors: readonly string[];
}

/** aggregateErrors joins error texts as Go's `utilerrors.NewAggregate(…).Error()` does: distinct ones, one bare, several in brackets. */
export function aggregateErrors(errors: readonly string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
/** GRANT_CACHE_SIZE bounds the cached grants (per user, and per user and namespace). */
const GRANT_CACHE_SIZE = 10_000;

/** appliesTo is `appliesToUser`: `namespace` is the binding's (`''` for a ClusterRoleBinding). */
function appliesTo(subject: Subject, user: UserInfo, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount': {
      const saNamespace = (subject.namespace ?? '') === '' ? namespace : subject.namespace!;
      if (saNamespace === '') return false;
      return user.name === `${SERVICE_ACCOUNT_PREFIX}${saNamespace}:${subject.name ?? ''}`;
    }
    default:
      return false;
  }
}

/** describeSubject is the upstream `describeSubject`: a service account as `name/namespace`. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const namespace = (subject.namespace ?? '') === '' ? bindingNamespace : subject.namespace!;
    return `${subject.kind} ${JSON.stringify(`${subject.name ?? ''}/${namespace}`)}`;
  }
  return `${subject.kind ?? ''} ${JSON.stringify(subject.name ?? '')}`;
}

/** DECISION_CACHE_SIZE bounds the cached decisions (users times the distinct requests they make). */
const DECISION_CACHE_SIZE = 10_000;

const MASTERS_DECISION: Decision = { allowed: true, reason: '' };

/** decisionKey names one user's request by everything an RBAC rule can match on (a non-resource request by its path). */
function decisionKey(user: UserInfo, a: Attributes): string {
  const request = a.resourceRequest
    ? `R${a.verb}\u0000${a.apiGroup}\u0000${a.resource}\u0000${a.subresource}\u0000${a.name}\u0000${a.namespace}`
    : `N${a.verb}\u0000${a.path}`;
  return `${user.name}\u0001${user.groups.join('\u0000')}\u0001${request}`;
}

const namespaceOfKey = (key: string): string => key.slice(0, key.indexOf('/'));
const nameOfKey = (key: string): string => key.slice(key.indexOf('/') + 1);

/** Authorizer decides requests against the stored Roles, ClusterRoles and their bindings. */
export class Authorizer {
  readonly #clusterRoles = new Map<string, ClusterRole>();
  readonly #clusterBindings = new Map<string, ClusterRoleBinding>();
  /** Roles by `namespace/name`. */
  readonly #roles = new Map<string, Role>();
  /** RoleBindings by namespace, then name. */
  readonly #roleBindings = new Map<string, Map<string, RoleBinding>>();
  #seen = -1;
  #refreshing: Promise<void> | undefined;
  /** Cluster-wide grants per user, and those plus a namespace's RoleBinding grants per user and namespace; cleared on any RBAC change. */
  // Bounded: impersonation lets a client name any number of users.
  readonly #clusterGrants = new BoundedMap<string, Grants>(GRANT_CACHE_SIZE);
  readonly #namespaceGrants = new BoundedMap<string, Grants>(GRANT_CACHE_SIZE);
  /**
   * Decisions per user and request attributes (verb, group, resource, subresource, name,
   * namespace, or the path of a non-resource request): authorize once, as the apiserver's
   * cached authorizer does. Cleared with the grants whenever the change feed brings an RBAC change.
   */
  readonly #decisions = new BoundedMap<string, Decision>(DECISION_CACHE_SIZE);

  constructor(
    readonly store: Store,
    readonly groups: Vocabulary,
  ) {}

  /**
   * isCurrent is true when the policy is known to be at the store's current revision without
   * asking it (a store that can tell synchronously, and no catch-up running): the request can be
   * decided at once, and only a write since the last catch-up costs a refresh.
   */
  isCurrent(): boolean {
    if (this.#refreshing !== undefined || this.store.revisionNow === undefined) return false;
    return this.store.revisionNow() <= this.#seen;
  }

  /** refresh brings the in-memory policy up to the store's current revision. */
  async refresh(): Promise<void> {
    // A catch-up already running may have read the feed before the caller's latest write: go again until current.
    for (let round = 0; round < 5; round++) {
      const revision = await this.store.currentRevision();
      if (revision <= this.#seen) return;
      this.#refreshing ??= this.#catchUp().finally(() => {
        this.#refreshing = undefined;
      });
      await this.#refreshing;
    }
  }

  #apply(kind: string, key: string, value: unknown): void {
    switch (kind) {
      case CLUSTER_ROLE_STORE_KIND:
        if (value === undefined) this.#clusterRoles.delete(key);
        else this.#clusterRoles.set(key, this.#normalise(value as ClusterRole));
        return;
      case CLUSTER_ROLE_BINDING_STORE_KIND:
        if (value === undefined) this.#clusterBindings.delete(key);
        else this.#clusterBindings.set(key, value as ClusterRoleBinding);
        return;
      case ROLE_STORE_KIND:
        if (value === undefined) this.#roles.delete(key);
        else this.#roles.set(key, this.#normalise(value as Role));
        return;
      case ROLE_BINDING_STORE_KIND: {
        const namespace = namespaceOfKey(key);
        let bindings = this.#roleBindings.get(namespace);
        if (value === undefined) {
          bindings?.delete(nameOfKey(key));
          if (bindings?.size === 0) this.#roleBindings.delete(namespace);
          return;
        }
        if (bindings === undefined) {
          bindings = new Map();
          this.#roleBindings.set(namespace, bindings);
        }
        bindings.set(nameOfKey(key), value as RoleBinding);
        return;
      }
    }
  }

  #clearGrants(): void {
    this.#clusterGrants.clear();
    this.#namespaceGrants.clear();
    this.#decisions.clear();
  }

  async #catchUp(): Promise<void> {
    const revision = await this.store.currentRevision();
    if (this.#seen !== -1) {
      try {
        const changes = await this.store.changesSince(this.#seen, { kinds: RBAC_STORE_KINDS });
        for (const change of changes) {
          this.#apply(change.kind, change.key, change.type === 'deleted' ? undefined : change.value);
          this.#seen = Math.max(this.#seen, change.revision);
        }
        this.#seen = Math.max(this.#seen, revision);
        if (changes.length > 0) this.#clearGrants();
        return;
      } catch (error) {
        if (!(error instanceof CompactedError)) throw error;
      }
    }
    this.#clusterRoles.clear();
    this.#clusterBindings.clear();
    this.#roles.clear();
    this.#roleBindings.clear();
    for (const kind of RBAC_STORE_KINDS) for (const record of await this.store.list(kind)) this.#apply(kind, record.key, record.value);
    this.#clearGrants();
    this.#seen = revision;
  }

  /** Rules name groups in either spelling; matching uses the canonical one. */
  #normalise<T extends ClusterRole | Role>(role: T): T {
    return {
      ...role,
      rules: (role.rules ?? []).map((rule) =>
        rule.apiGroups === undefined
          ? rule
          : { ...rule, apiGroups: rule.apiGroups.map((group) => (group === '*' || group === '' ? group : this.groups.canonical(group))) },
      ),
    };
  }

  /** roleReferenceRules is `GetRoleReferenceRules`: the rules of a binding's role, or the lister's NotFound text. */
  roleReferenceRules(kind: string, name: string, namespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    if (kind === 'Role') {
      const role = this.#roles.get(`${namespace}/${name}`);
      return role === undefined ? { error: `role.rbac.authorization.k8s.io ${JSON.stringify(name)} not found` } : { rules: role.rules ?? [] };
    }
    if (kind === 'ClusterRole') {
      const role = this.#clusterRoles.get(name);
      return role === undefined ? { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(name)} not found` } : { rules: role.rules ?? [] };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(kind)}` };
  }

  #visit(user: UserInfo, bindings: ReadonlyMap<string, ClusterRoleBinding>, namespace: string): Grants {
    const granted: GrantedRules[] = [];
    const errors: string[] = [];
    for (const name of [...bindings.keys()].sort()) {
      const binding = bindings.get(name)!;
      const subject = (binding.subjects ?? []).find((candidate) => appliesTo(candidate, user, namespace));
      if (subject === undefined) continue;
      const kind = binding.roleRef?.kind ?? '';
      const roleName = binding.roleRef?.name ?? '';
      const resolved = this.roleReferenceRules(kind, roleName, namespace);
      if ('error' in resolved) {
        errors.push(resolved.error);
        continue;
      }
      const source =
        namespace === ''
          ? `ClusterRoleBinding ${JSON.stringify(name)} of ${kind} ${JSON.stringify(roleName)} to ${describeSubject(subject, '')}`
          : `RoleBinding ${JSON.stringify(`${name}/${namespace}`)} of ${kind} ${JSON.stringify(roleName)} to ${describeSubject(subject, namespace)}`;
      granted.push({ source, rules: resolved.rules });
    }
    return { granted, errors };
  }

  /**
   * grantsFor lists, per binding that applies to the user, the rules it grants: every
   * ClusterRoleBinding, then (for a namespace) that namespace's RoleBindings, each by name.
   */
  grantsFor(user: UserInfo, namespace: string): Grants {
    const userKey = `${user.name}\u0000${user.groups.join('\u0000')}`;
    let cluster = this.#clusterGrants.get(userKey);
    if (cluster === undefined) {
      cluster = this.#visit(user, this.#clusterBindings, '');
      this.#clusterGrants.set(userKey, cluster);
    }
    if (namespace === '') return cluster;
    const bindings = this.#roleBindings.get(namespace);
    if (bindings === undefined) return cluster;
    const key = `${namespace}\u0000${userKey}`;
    let merged = this.#namespaceGrants.get(key);
    if (merged === undefined) {
      const local = this.#visit(user, bindings, namespace);
      merged =
        local.granted.length === 0 && local.errors.length === 0
          ? cluster
          : { granted: [...cluster.granted, ...local.granted], errors: [...cluster.errors, ...local.errors] };
      this.#namespaceGrants.set(key, merged);
    }
    return merged;
  }

  /** rulesFor is every rule the user holds in the namespace, and the resolution errors (what escalation checks and SelfSubjectRulesReview use). */
  rulesFor(user: UserInfo, namespace: string): { readonly rules: PolicyRule[]; readonly errors: readonly string[] } {
    const grants = this.grantsFor(user, namespace);
    return { rules: grants.granted.flatMap((granted) => granted.rules), errors: grants.errors };
  }

  /** decide answers one request for one user (call refresh first); a refusal's reason names the bindings that could not be resolved. */
  decide(user: UserInfo, attributes: Attributes): Decision {
    if (user.groups.includes(MASTERS_GROUP)) return MASTERS_DECISION;
    const key = decisionKey(user, attributes);
    let decision = this.#decisions.get(key);
    if (decision === undefined) {
      decision = this.#decide(user, attributes);
      this.#decisions.set(key, decision);
    }
    return decision;
  }

  #decide(user: UserInfo, attributes: Attributes): Decision {
    const grants = this.grantsFor(user, attributes.namespace);
    for (const granted of grants.granted) {
      for (const rule of granted.rules) if (ruleAllows(attributes, rule)) return { allowed: true, reason: `RBAC: allowed by ${granted.source}` };
    }
    return { allowed: false, reason: grants.errors.length === 0 ? '' : `RBAC: ${aggregateErrors(grants.errors)}` };
  }
}
