/**
 * The ServiceAccount controller of kube-controller-manager (upstream
 * `pkg/controller/serviceaccount/serviceaccounts_controller.go`): every namespace that is not
 * being deleted holds a `default` ServiceAccount. It watches namespaces and ServiceAccounts on the
 * store's change feed: a new namespace gets its account, and a deleted `default` account is made
 * again (with a new uid, so tokens of the old one stop working). A namespace's accounts go with
 * the namespace (the runtime's delete hook), so nothing is recreated there.
 */
import type { Store, Subscription } from '../../../store/index.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { Namespace } from './namespaces.ts';
import { NAMESPACE_STORE_KIND } from './namespaces.ts';
import { DEFAULT_SERVICE_ACCOUNT, SERVICE_ACCOUNT_STORE_KIND, serviceAccountsView } from './service-accounts.ts';

/** SERVICE_ACCOUNT_CONTROLLER_MANAGER is the field manager of the controller's writes (the controller-manager's own). */
export const SERVICE_ACCOUNT_CONTROLLER_MANAGER = 'kube-controller-manager';

/** ServiceAccountController keeps a `default` ServiceAccount in every live namespace. */
export class ServiceAccountController {
  #subscription: Subscription | undefined;
  #pending = new Set<string>();
  #running: Promise<void> | undefined;
  #stopped = false;

  /** lastError is the last unexpected failure (the next change retries), for diagnostics. */
  lastError: unknown;

  constructor(
    readonly store: Store,
    readonly registry: GenericRegistry,
  ) {}

  /** start ensures the account in every namespace now, then follows the change feed. */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    // A replaced state (a restore, a reset) ends the subscription: attach again and resync.
    const onReset = (): void => {
      if (!this.#stopped) void this.start().catch((error: unknown) => (this.lastError = error));
    };
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        if (change.kind === NAMESPACE_STORE_KIND && change.type !== 'deleted') this.#queue(change.key);
        else if (change.kind === SERVICE_ACCOUNT_STORE_KIND && change.type === 'deleted') {
          const [namespace, name] = change.key.split('/');
          if (name === DEFAULT_SERVICE_ACCOUNT && namespace !== undefined) this.#queue(namespace);
        }
      },
      { kinds: [NAMESPACE_STORE_KIND, SERVICE_ACCOUNT_STORE_KIND], onReset },
    );
    for (const record of await this.store.list(NAMESPACE_STORE_KIND)) this.#pending.add(record.key);
    this.#kick();
    await this.idle();
  }

  /** stop detaches from the change feed and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#subscription?.close();
    await this.#running;
  }

  /** idle resolves once no namespace is waiting for its account (tests wait on it). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  #queue(namespace: string): void {
    this.#pending.add(namespace);
    this.#kick();
  }

  #kick(): void {
    this.#running ??= this.#loop()
      .catch((error: unknown) => {
        // Background work never takes the server down (the store may be closing).
        this.lastError = error;
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      const namespace = this.#pending.values().next().value;
      if (namespace === undefined) return;
      this.#pending.delete(namespace);
      await this.#sync(namespace);
    }
  }

  async #sync(namespace: string): Promise<void> {
    const found = await this.store.get<Namespace>(NAMESPACE_STORE_KIND, namespace);
    // Upstream skips namespaces that are gone or terminating.
    if (found === undefined || found.value.metadata.deletionTimestamp !== undefined || found.value.status?.phase === 'Terminating') return;
    if ((await this.store.get(SERVICE_ACCOUNT_STORE_KIND, `${namespace}/${DEFAULT_SERVICE_ACCOUNT}`)) !== undefined) return;
    const scope: RequestScope = { view: serviceAccountsView, group: '', namespace };
    try {
      await this.registry.create(scope, { metadata: { name: DEFAULT_SERVICE_ACCOUNT } }, { dryRun: false, fieldManager: SERVICE_ACCOUNT_CONTROLLER_MANAGER });
    } catch (error) {
      // Made meanwhile (another replica), or the namespace went: nothing to do, as upstream.
      if (!(error instanceof StatusError) || (error.reason !== 'AlreadyExists' && error.reason !== 'NotFound')) throw error;
    }
  }
}
