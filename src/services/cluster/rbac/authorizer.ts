/**
 * The RBAC authorizer (upstream `plugin/pkg/auth/authorizer/rbac`): a request is allowed when a
 * rule of a ClusterRole bound to the user (by name), to one of its groups, or to its service
 * account allows it; `system:masters` is allowed everything, as the real server's privileged-group
 * authorizer does. Roles and bindings are held in memory and brought up to date from the store's
 * change feed before each decision, so a binding written a moment ago already counts.
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import { CompactedError, type Store } from '../../../store/index.ts';
import type { UserInfo } from '../cluster-auth.ts';
import type { ClusterRole, PolicyRule } from '../resources/cluster-roles.ts';
import type { ClusterRoleBinding, Subject } from '../resources/cluster-role-bindings.ts';
import { ruleAllows, type Attributes } from './policy-rules.ts';

/** CLUSTER_ROLE_STORE_KIND and CLUSTER_ROLE_BINDING_STORE_KIND are where the RBAC objects live. */
export const CLUSTER_ROLE_STORE_KIND = 'cluster/clusterroles';
export const CLUSTER_ROLE_BINDING_STORE_KIND = 'cluster/clusterrolebindings';

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

function appliesTo(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name ?? '');
    case 'ServiceAccount':
      return user.name === `system:serviceaccount:${subject.namespace ?? ''}:${subject.name ?? ''}`;
    default:
      return false;
  }
}

function describeSubject(subject: Subject): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${JSON.stringify(`${subject.namespace ?? ''}/${subject.name ?? ''}`)}`;
  return `${subject.kind ?? ''} ${JSON.stringify(subject.name ?? '')}`;
}

/** Authorizer decides requests against the stored ClusterRoles and ClusterRoleBindings. */
export class Authorizer {
  readonly #roles = new Map<string, ClusterRole>();
  readonly #bindings = new Map<string, ClusterRoleBinding>();
  #seen = -1;
  #refreshing: Promise<void> | undefined;
  readonly #granted = new Map<string, GrantedRules[]>();

  constructor(
    readonly store: Store,
    readonly groups: Vocabulary,
  ) {}

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

  async #catchUp(): Promise<void> {
    const revision = await this.store.currentRevision();
    let changed = false;
    if (this.#seen !== -1) {
      try {
        const changes = await this.store.changesSince(this.#seen, { kinds: [CLUSTER_ROLE_STORE_KIND, CLUSTER_ROLE_BINDING_STORE_KIND] });
        for (const change of changes) {
          const map = change.kind === CLUSTER_ROLE_STORE_KIND ? this.#roles : (this.#bindings as Map<string, unknown>);
          if (change.type === 'deleted') map.delete(change.key);
          else map.set(change.key, this.#normalise(change.kind, change.value));
          changed = true;
          this.#seen = Math.max(this.#seen, change.revision);
        }
        this.#seen = Math.max(this.#seen, revision);
        if (changed) this.#granted.clear();
        return;
      } catch (error) {
        if (!(error instanceof CompactedError)) throw error;
      }
    }
    this.#roles.clear();
    this.#bindings.clear();
    for (const record of await this.store.list<ClusterRole>(CLUSTER_ROLE_STORE_KIND))
      this.#roles.set(record.key, this.#normalise(CLUSTER_ROLE_STORE_KIND, record.value) as ClusterRole);
    for (const record of await this.store.list<ClusterRoleBinding>(CLUSTER_ROLE_BINDING_STORE_KIND)) this.#bindings.set(record.key, record.value);
    this.#granted.clear();
    this.#seen = revision;
  }

  /** Rules name groups in either spelling; matching uses the canonical one. */
  #normalise(kind: string, value: unknown): unknown {
    if (kind !== CLUSTER_ROLE_STORE_KIND) return value;
    const role = value as ClusterRole;
    return {
      ...role,
      rules: (role.rules ?? []).map((rule) =>
        rule.apiGroups === undefined
          ? rule
          : { ...rule, apiGroups: rule.apiGroups.map((group) => (group === '*' || group === '' ? group : this.groups.canonical(group))) },
      ),
    };
  }

  /** grantedTo lists, per binding that applies to the user, the rules it grants (bindings by name, as a lister yields them). */
  grantedTo(user: UserInfo): readonly GrantedRules[] {
    const key = `${user.name}\u0000${user.groups.join('\u0000')}`;
    const cached = this.#granted.get(key);
    if (cached !== undefined) return cached;
    const out: GrantedRules[] = [];
    for (const name of [...this.#bindings.keys()].sort()) {
      const binding = this.#bindings.get(name)!;
      const subject = (binding.subjects ?? []).find((candidate) => appliesTo(candidate, user));
      if (subject === undefined || binding.roleRef?.kind !== 'ClusterRole') continue;
      const role = this.#roles.get(binding.roleRef.name ?? '');
      if (role === undefined) continue;
      out.push({
        source: `ClusterRoleBinding ${JSON.stringify(name)} of ClusterRole ${JSON.stringify(binding.roleRef.name ?? '')} to ${describeSubject(subject)}`,
        rules: role.rules ?? [],
      });
    }
    this.#granted.set(key, out);
    return out;
  }

  /** rulesFor is every rule the user holds (what escalation checks and SelfSubjectRulesReview use). */
  rulesFor(user: UserInfo): PolicyRule[] {
    return this.grantedTo(user).flatMap((granted) => granted.rules);
  }

  /** role reads one ClusterRole from the in-memory policy. */
  role(name: string): ClusterRole | undefined {
    return this.#roles.get(name);
  }

  /** decide answers one request for one user (call refresh first). */
  decide(user: UserInfo, attributes: Attributes): Decision {
    if (user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: '' };
    for (const granted of this.grantedTo(user)) {
      for (const rule of granted.rules) if (ruleAllows(attributes, rule)) return { allowed: true, reason: `RBAC: allowed by ${granted.source}` };
    }
    return { allowed: false, reason: '' };
  }
}
