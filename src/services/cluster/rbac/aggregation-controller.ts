/**
 * The ClusterRole aggregation controller (upstream `pkg/controller/clusterroleaggregation`),
 * subscribed to the store's change feed: any ClusterRole change re-syncs every role with an
 * aggregationRule. A sync walks the selectors in order, takes the matching roles sorted by name
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

/** semanticKey makes rules that are semantically deep-equal (nil and empty lists alike) equal. */
function semanticKey(rule: PolicyRule): string {
  return JSON.stringify([rule.verbs ?? [], rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);
}

/** AggregationController keeps aggregated ClusterRoles in step with the roles they select. */
export class AggregationController {
  #subscription: Subscription | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
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

  #kick(): void {
    this.#dirty = true;
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
    // Changes arriving during a sync mark it dirty; one more pass then covers all of them.
    while (this.#dirty && !this.#stopped) {
      this.#dirty = false;
      await this.#syncAll();
    }
  }

  async #syncAll(): Promise<void> {
    const all = (await this.store.list<ClusterRole>(CLUSTER_ROLE_STORE_KIND)).map((record) => record.value);
    for (const role of all) {
      try {
        const rules = aggregateRules(role, all);
        if (rules === undefined || semanticList(rules) === semanticList(role.rules ?? [])) continue;
        // Upstream the controller runs beside the apiserver, never in its way. Here the store's
        // promises settle at once, so a long sync (hundreds of roles aggregating each other, each
        // write waking the next pass) would run as one chain of microtasks and starve every
        // request; one turn of the event loop before each write keeps the server answering.
        await setImmediate();
        if (this.#stopped) return;
        await applyObject(
          { registry: this.registry, groups: this.groups },
          this.scope,
          role.metadata.name!,
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role.metadata.name }, rules },
          { dryRun: false, fieldManager: AGGREGATION_MANAGER, force: true, fieldValidation: 'Ignore' },
        );
      } catch (error) {
        // The role went away or changed meanwhile, or a selector is malformed: the next change re-syncs, as upstream retries.
        if (!(error instanceof StatusError) && !(error instanceof LabelSelectorSyntaxError)) throw error;
      }
    }
  }
}

function semanticList(rules: readonly PolicyRule[]): string {
  return JSON.stringify(rules.map(semanticKey));
}
