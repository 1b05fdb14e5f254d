/**
 * The custom resources served at this moment: views built from the stored CustomResourceDefinitions
 * and kept current from the store's change feed, so a CRD created through another replica sharing a
 * PostgreSQL store is served here too, and a snapshot restored or a reset (the feed's reset) rebuilds
 * them from the new state. Local stores publish a commit before the write returns, so a CRD created
 * through this server is served by the next request.
 */
import type { Store, Subscription } from '../../../store/index.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import { CRD_STORE_KIND } from './crd-resource.ts';
import { customResourceViews } from './custom-resource-view.ts';
import type { CustomResourceDefinition } from './types.ts';

/** ServedCrd is one CRD as served: its views, rebuilt when it changes. */
interface ServedCrd {
  readonly revision: number;
  readonly crd: CustomResourceDefinition;
  readonly views: readonly AnyView[];
}

/** viewsOf builds a CRD's views; a stored CRD this version cannot serve (it was never valid here) serves nothing rather than failing the others. */
function viewsOf(crd: CustomResourceDefinition): AnyView[] {
  try {
    return customResourceViews(crd);
  } catch {
    return [];
  }
}

/** CustomResourceCatalog follows the stored CRDs and tells its owner when the served views change. */
export class CustomResourceCatalog {
  #served = new Map<string, ServedCrd>();
  #views: readonly AnyView[] = [];
  #subscription: Subscription | undefined;
  #stopped = false;

  constructor(
    readonly store: Store,
    readonly onChange: (views: readonly AnyView[]) => void,
  ) {}

  /** start reads every stored CRD, then follows the change feed (reading everything again after a reset). */
  async start(): Promise<void> {
    const from = await this.store.currentRevision();
    const onReset = (): void => {
      if (this.#stopped) return;
      // A replaced state's records may carry older revisions than those held: forget everything.
      this.#served = new Map();
      void this.start().catch(() => undefined);
    };
    this.#subscription?.close();
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        if (change.type === 'deleted') this.#served.delete(change.key);
        else this.#set(change.value as CustomResourceDefinition, change.revision);
        this.#publish();
      },
      { kinds: [CRD_STORE_KIND], onReset },
    );
    const records = await this.store.list<CustomResourceDefinition>(CRD_STORE_KIND);
    const listed = new Set(records.map((record) => record.key));
    // What the feed delivered while the list was read is as new as the list or newer: keep it.
    for (const [name, served] of this.#served) if (!listed.has(name) && served.revision <= from) this.#served.delete(name);
    for (const record of records) this.#set(record.value, record.revision);
    this.#publish();
  }

  /** stop detaches from the change feed. */
  stop(): void {
    this.#stopped = true;
    this.#subscription?.close();
  }

  /** views are every custom resource view served now. */
  get views(): readonly AnyView[] {
    return this.#views;
  }

  /** crds are the stored CRDs as last seen. */
  get crds(): readonly CustomResourceDefinition[] {
    return [...this.#served.values()].map((served) => served.crd);
  }

  /** storeKinds are the store kinds of the served custom resources, the namespaced ones alone when asked (a namespace's deletion empties them). */
  storeKinds(namespacedOnly: boolean): string[] {
    return [...new Set(this.#views.filter((view) => !namespacedOnly || view.strategy.namespaced).map((view) => view.storeKind))];
  }

  #set(crd: CustomResourceDefinition, revision: number): void {
    const name = crd.metadata.name ?? '';
    const current = this.#served.get(name);
    // A revision seen already, or older than the one held (the feed and the list overlap): nothing to rebuild.
    if (current !== undefined && current.revision >= revision) return;
    this.#served.set(name, { revision, crd, views: viewsOf(crd) });
  }

  #publish(): void {
    const names = [...this.#served.keys()].sort();
    this.#views = names.flatMap((name) => this.#served.get(name)!.views);
    this.onChange(this.#views);
  }
}

/** builtFor keeps the views built for a stored CRD object (a store hands out the same object until it changes). */
const builtFor = new WeakMap<object, readonly AnyView[]>();

/**
 * storedCustomResourceViews are the custom resource views the stored CRDs serve, read from the
 * store itself, for parts outside the cluster runtime (the console's cluster views).
 */
export async function storedCustomResourceViews(store: Store): Promise<AnyView[]> {
  const records = await store.list<CustomResourceDefinition>(CRD_STORE_KIND);
  return records.flatMap((record) => {
    let views = builtFor.get(record.value);
    if (views === undefined) {
      views = viewsOf(record.value);
      builtFor.set(record.value, views);
    }
    return views;
  });
}
