/**
 * Server-side printing: `Table` responses (meta.k8s.io/v1) and `PartialObjectMetadata`, built
 * from each strategy's columns and rows (upstream apiserver `registry/rest/table.go` and the
 * `includeObject` option).
 */
import type { KubeObject } from './object-meta.ts';
import { invalidObject } from './status.ts';
import { invalid } from './field-errors.ts';
import type { AnyView } from './strategy.ts';

/** IncludeObject says what each Table row carries in `object`. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** parseIncludeObject validates the `includeObject` query value. */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw invalidObject({ group: 'meta.k8s.io', kind: 'TableOptions' }, '', [invalid('includeObject', value, "must be 'Metadata', 'Object', 'None', or empty")]);
}

/** partialObject is an object reduced to its metadata, as PartialObjectMetadata. */
export function partialObject(object: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
}

/** toTable renders objects (with their stored forms for the row logic) as a Table. */
export function toTable(
  view: AnyView,
  entries: readonly { readonly stored: KubeObject; readonly object: KubeObject }[],
  listMeta: Record<string, unknown>,
  options: { readonly now: number; readonly version: string; readonly include: IncludeObject; readonly noHeaders?: boolean },
): Record<string, unknown> {
  const rows = entries.map(({ stored, object }) => ({
    cells: view.strategy.tableRow(stored, options.now),
    ...(options.include === 'None' ? {} : { object: options.include === 'Object' ? object : partialObject(object, options.version) }),
  }));
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: listMeta,
    columnDefinitions: options.noHeaders === true ? null : view.strategy.tableColumns,
    rows,
  };
}
