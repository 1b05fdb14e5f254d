/**
 * What the cluster's resource handlers share (resource-handlers.ts, patch-handler.ts,
 * watch-stream.ts): the generic registry, the index of the views served, the watch settings and
 * the live watches, and the id source's random draws. The runtime makes one (runtime.ts).
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { GenericRegistry } from './registry.ts';
import type { AnyView } from './strategy.ts';
import type { ActiveWatches, WatchSettings } from './watch.ts';

/** HandlerContext is what resource handlers share. */
export interface HandlerContext {
  readonly registry: GenericRegistry;
  readonly index: ViewIndex;
  readonly watch: { readonly settings: WatchSettings; readonly active: ActiveWatches };
  /** random draws a number in [0, 1) from the injected id source. */
  readonly random: () => number;
}

/** ViewIndex finds views by group, version and resource: the fixed ones, and those served for the CRDs of the moment. */
export class ViewIndex {
  readonly #byPath = new Map<string, AnyView>();
  #dynamic = new Map<string, AnyView>();
  #dynamicViews: readonly AnyView[] = [];
  constructor(
    readonly fixed: readonly AnyView[],
    readonly groups: Vocabulary,
  ) {
    for (const view of fixed) this.#byPath.set(pathOf(view), view);
  }

  /** views are every view served now, the fixed ones first. */
  get views(): readonly AnyView[] {
    return this.#dynamicViews.length === 0 ? this.fixed : [...this.fixed, ...this.#dynamicViews];
  }

  /** setDynamic replaces the views served besides the fixed ones (custom resources); a fixed view keeps its path. */
  setDynamic(views: readonly AnyView[]): void {
    const next = new Map<string, AnyView>();
    for (const view of views) if (!this.#byPath.has(pathOf(view))) next.set(pathOf(view), view);
    this.#dynamic = next;
    this.#dynamicViews = [...next.values()];
  }

  /** find returns the view for a group (either spelling), version, plural resource and optional subresource. */
  find(group: string, version: string, resource: string, subresource?: string): AnyView | undefined {
    const path = `${this.groups.canonical(group)}/${version}/${resource}${subresource === undefined ? '' : `/${subresource}`}`;
    return this.#byPath.get(path) ?? this.#dynamic.get(path);
  }
}

function pathOf(view: AnyView): string {
  return `${view.group}/${view.version}/${view.resource}${view.subresource === undefined ? '' : `/${view.subresource}`}`;
}
