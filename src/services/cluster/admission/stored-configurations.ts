/**
 * The admission configuration of the moment — ValidatingAdmissionPolicies and their bindings,
 * Validating- and MutatingWebhookConfigurations — held in memory from the store and kept current
 * from its change feed (as the apiserver's informers feed its admission plugins), so a request
 * reads no configuration from the store. Local stores publish a commit before the write returns,
 * so a policy written through this server applies to the next request; a reset relists.
 */
import type { Store, Subscription } from '../../../store/index.ts';
import { storeKindOf } from '../builtin/store-kinds.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';

const GROUP = 'admissionregistration.k8s.io';

/** ADMISSION_STORE_KINDS are the store kinds of the four configuration kinds admission reads. */
export const ADMISSION_STORE_KINDS = {
  policies: storeKindOf({ group: GROUP, resource: 'validatingadmissionpolicies' }),
  bindings: storeKindOf({ group: GROUP, resource: 'validatingadmissionpolicybindings' }),
  validatingWebhooks: storeKindOf({ group: GROUP, resource: 'validatingwebhookconfigurations' }),
  mutatingWebhooks: storeKindOf({ group: GROUP, resource: 'mutatingwebhookconfigurations' }),
} as const;

/** ConfigurationSet is one kind's objects by name, replaced (never mutated) on a change, so a request reads one consistent set. */
export type ConfigurationSet = ReadonlyMap<string, KubeObject>;

/** StoredConfigurations follows the four kinds. */
export class StoredConfigurations {
  readonly #sets = new Map<string, ConfigurationSet>(Object.values(ADMISSION_STORE_KINDS).map((kind) => [kind, new Map()]));
  #subscription: Subscription | undefined;
  #stopped = false;
  /** generation counts changes, so compiled forms can be kept until the next one. */
  generation = 0;
  readonly #policyListeners = new Set<(policy: KubeObject) => void>();

  constructor(readonly store: Store) {}

  /** start reads every configuration object, then follows the change feed (relisting after a reset). */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    this.#subscription?.close();
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        const next = new Map(this.#sets.get(change.kind));
        if (change.type === 'deleted') next.delete(change.key);
        else next.set(change.key, change.value as KubeObject);
        this.#sets.set(change.kind, next);
        this.generation++;
        if (change.kind === ADMISSION_STORE_KINDS.policies && change.type !== 'deleted') this.#tellPolicy(change.value as KubeObject);
      },
      {
        kinds: Object.values(ADMISSION_STORE_KINDS),
        onReset: () => {
          if (!this.#stopped) void this.start().catch(() => undefined);
        },
      },
    );
    for (const kind of Object.values(ADMISSION_STORE_KINDS)) {
      const records = await this.store.list<KubeObject>(kind);
      this.#sets.set(kind, new Map(records.map((record) => [record.key, record.value])));
    }
    this.generation++;
    for (const policy of this.policies.values()) this.#tellPolicy(policy);
  }

  /** onPolicy hears every stored policy as it is written (and each one once at start): the type-checking controller. */
  onPolicy(listener: (policy: KubeObject) => void): void {
    this.#policyListeners.add(listener);
  }

  #tellPolicy(policy: KubeObject): void {
    for (const listener of this.#policyListeners) listener(policy);
  }

  /** stop detaches from the change feed. */
  stop(): void {
    this.#stopped = true;
    this.#subscription?.close();
  }

  get policies(): ConfigurationSet {
    return this.#sets.get(ADMISSION_STORE_KINDS.policies)!;
  }
  get bindings(): ConfigurationSet {
    return this.#sets.get(ADMISSION_STORE_KINDS.bindings)!;
  }
  get validatingWebhooks(): ConfigurationSet {
    return this.#sets.get(ADMISSION_STORE_KINDS.validatingWebhooks)!;
  }
  get mutatingWebhooks(): ConfigurationSet {
    return this.#sets.get(ADMISSION_STORE_KINDS.mutatingWebhooks)!;
  }

  /** empty is true when nothing admission acts on is configured (bindings without policies act on nothing). */
  empty(): boolean {
    return this.bindings.size === 0 && this.validatingWebhooks.size === 0 && this.mutatingWebhooks.size === 0;
  }
}
