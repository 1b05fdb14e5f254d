/**
 * loadOnFirstUse wraps the loading of a family's heavy parts (a dynamic `import()` and whatever
 * they build): the first caller starts it, every caller until it settles shares that promise, and
 * later callers get the loaded value. A failed load is not kept: the next caller tries again (a
 * store that was unreachable at the first request may be back by the second).
 *
 * Start-up time and idle memory are why: esbuild puts each dynamically imported module graph in
 * its own chunk, which is read and compiled only when first used.
 */
export function loadOnFirstUse<T>(load: () => Promise<T>): LoadOnFirstUse<T> {
  let loading: Promise<T> | undefined;
  let value: { readonly loaded: T } | undefined;
  const get = (() =>
    (loading ??= load().then(
      (loaded) => {
        value = { loaded };
        return loaded;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ))) as LoadOnFirstUse<T>;
  get.loaded = () => loading;
  get.ready = () => value?.loaded;
  return get;
}

/**
 * LoadOnFirstUse loads on its first call; `loaded()` is the load started so far, if any (for
 * closing what was loaded, without loading it); `ready()` is the value once loaded, so the
 * requests that come after need not wait a turn for an already settled promise.
 */
export interface LoadOnFirstUse<T> {
  (): Promise<T>;
  loaded(): Promise<T> | undefined;
  ready(): T | undefined;
}

/**
 * commonJs gives the exports of a dynamically imported CommonJS package. Run natively, Node names
 * its exports; bundled into a split chunk by esbuild, only the default export (the whole
 * `module.exports`) is there, and named ones read as undefined (`Certificate is not a
 * constructor`). The default export is the whole module either way, so it is preferred.
 */
export function commonJs<T extends object>(namespace: T): T {
  return (namespace as T & { readonly default?: T }).default ?? namespace;
}
