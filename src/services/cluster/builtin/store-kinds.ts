/** Where the built-in kinds' objects live in the store (shared by the views and the cross-resource hooks). */

/** storeKindOf is the store kind of a built-in kind's objects. */
export function storeKindOf(entry: { readonly group: string; readonly resource: string }): string {
  return `cluster/builtin/${entry.group === '' ? 'core' : entry.group}/${entry.resource}`;
}
