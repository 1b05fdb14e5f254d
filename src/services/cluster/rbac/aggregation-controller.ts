/**
 * The ClusterRole aggregation controller (upstream `pkg/controller/clusterroleaggregation`),
 * subscribed to the store's change feed: any ClusterRole change queues every role with an
 * aggregationRule (a role queued again before its sync is synced once, as upstream's workqueue
 * coalesces keys), and each is synced from the roles as they are then. A sync walks the selectors in order, takes the matching roles sorted by name
 * (never the role itself), and appends each rule not already present; when the result differs from
 * the role's rules it is written by server-side apply as `clusterrole-aggregation-controller` with
 * force, so direct edits to an aggregated role's rules are overwritten.
 */
import { setImmediate } from 'node:timers/promises';
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { Store, Subscription } from '../../../store/index.ts';
import { fromStructured, LabelSelectorSyntaxError, type StructuredLabelSelector } from '../apimachinery/label-selector.ts';
import { applyObject } from '../apimachinery/patch-handler.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { ClusterRole, PolicyRule } from '../resources/cluster-roles.ts';
import { CLUSTER_ROLE_STORE_KIND } from './authorizer.ts';

/** AGGREGATION_MANAGER is the field manager of the controller's writes. */
export const AGGREGATION_MANAGER = 'clusterrole-aggregation-controller';

/** aggregateRules computes an aggregated role's rules from all roles (the controller's sync, pure). */
export function aggregateRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (selectors === undefined) return undefined;
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const selector of selectors) {
    const matcher = fromStructured(selector as StructuredLabelSelector);
    for (const candidate of sorted) {
      if (candidate.metadata.name === role.metadata.name || !matcher.matches(candidate.metadata.labels)) continue;
      for (const rule of candidate.rules ?? []) {
        const key = semanticKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

// Every change re-syncs every aggregated role over every role's rules: each rule read from the store is keyed once.
const semanticKeys = new WeakMap<PolicyRule, string>();

/** semanticKey makes rules that are semantically deep-equal (nil and empty lists alike) equal. */
function semanticKey(rule: PolicyRule): string {
  if (rule === null || typeof rule !== 'object') return JSON.stringify(rule);
  let key = semanticKeys.get(rule);
  if (key === undefined) {
    key = JSON.stringify([rule.verbs ?? [], rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);
    semanticKeys.set(rule, key);
  }
  return key;
}

/** AggregationController keeps aggregated ClusterRoles in step with the roles they select. */
export class AggregationController {
  #subscription: Subscription | undefined;
  #running: Promise<void> | undefined;
  // Upstream's workqueue: a role queued many times before it is synced is synced once.
  #pending = new Set<string>();
  // A ClusterRole changed since the roles were last read: read them again and queue every aggregated role.
  #changed = false;
  #roles = new Map<string, ClusterRole>();
  #stopped = false;

  constructor(
    readonly store: Store,
    readonly registry: GenericRegistry,
    readonly groups: Vocabulary,
    readonly scope: RequestScope,
  ) {}

  /** start syncs once and then on every ClusterRole change. */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    // A replaced state (a snapshot restored, a reset) ends the subscription: attach again and sync.
    const onReset = (): void => {
      if (!this.#stopped) void this.start().catch((error: unknown) => (this.lastError = error));
    };
    this.#subscription = await this.store.subscribe(from, () => this.#kick(), { kinds: [CLUSTER_ROLE_STORE_KIND], onReset });
    this.#kick();
  }

  /** stop detaches from the change feed and waits for a sync in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#subscription?.close();
    await this.#running;
  }

  /** idle resolves once no sync is pending (tests and benches wait on it). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** lastError is the last unexpected sync failure (the next ClusterRole change retries), for diagnostics. */
  lastError: unknown;

  /** writes counts the controller's writes since it started (tests check that it settles). */
  writes = 0;

  #kick(): void {
    this.#changed = true;
    this.#running ??= this.#loop()
      .catch((error: unknown) => {
        // A background sync must never take the server down (the store may be closing); keep it for diagnosis.
        this.lastError = error;
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      if (this.#changed) {
        // Upstream enqueues every aggregated role on any ClusterRole event and syncs each from the
        // informer's current state. Reading again after every change (this controller's own writes
        // included) keeps each sync on current rules: computed from a list read before earlier
        // writes of the same pass, roles that select each other would flip their rules' order
        // back and forth and never settle.
        this.#changed = false;
        const all = (await this.store.list<ClusterRole>(CLUSTER_ROLE_STORE_KIND)).map((record) => record.value);
        this.#roles = new Map(all.map((role) => [role.metadata.name ?? '', role]));
        for (const role of all) if (role.aggregationRule !== undefined && role.aggregationRule !== null) this.#pending.add(role.metadata.name ?? '');
      }
      // Name order, so the same inputs are always synced the same way.
      const name = [...this.#pending].sort()[0];
      if (name === undefined) return;
      this.#pending.delete(name);
      await this.#sync(name);
    }
  }

  async #sync(name: string): Promise<void> {
    const role = this.#roles.get(name);
    if (role === undefined) return;
    try {
      const rules = aggregateRules(role, [...this.#roles.values()]);
      // Upstream writes only when !equality.Semantic.DeepEqual(original.Rules, newPolicyRules).
      if (rules === undefined || semanticList(rules) === semanticList(role.rules ?? [])) return;
      // Upstream the controller runs beside the apiserver, never in its way. Here the store's
      // promises settle at once, so a long sync (hundreds of roles aggregating each other, each
      // write waking the next pass) would run as one chain of microtasks and starve every
      // request; one turn of the event loop before each write keeps the server answering.
      await setImmediate();
      if (this.#stopped || this.#changed) {
        // Something changed meanwhile: sync this role again from what is current.
        this.#pending.add(name);
        return;
      }
      this.writes++;
      // The write's own change event marks the roles changed; say so now too, whenever the feed delivers it.
      this.#changed = true;
      await applyObject(
        { registry: this.registry, groups: this.groups },
        this.scope,
        name,
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
        { dryRun: false, fieldManager: AGGREGATION_MANAGER, force: true, fieldValidation: 'Ignore' },
      );
    } catch (error) {
      // The role went away or changed meanwhile, or a selector is malformed: the next change re-syncs, as upstream retries.
      if (!(error instanceof StatusError) && !(error instanceof LabelSelectorSyntaxError)) throw error;
    }
  }
}

function semanticList(rules: readonly PolicyRule[]): string {
  return JSON.stringify(rules.map(semanticKey));
}
