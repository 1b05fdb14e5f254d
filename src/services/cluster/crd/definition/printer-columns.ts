/**
 * Table columns and cells of custom resources (apiextensions-apiserver `registry/customresource/
 * tableconvertor`): `Name`, then the version's `additionalPrinterColumns` (or `Age` when it has
 * none), each cell found with client-go JSONPath (missing keys allowed) and typed as the
 * apiserver types it.
 */
import { NAME_COLUMN } from '../../builtin/behaviour.ts';
import { humanDuration } from '../../apimachinery/human-duration.ts';
import type { TableColumn } from '../../apimachinery/strategy.ts';
import type { CustomResourceColumnDefinition, CustomResourceDefinitionVersion } from '../types.ts';
import { evaluateJsonPath, printJsonPathResults } from './jsonpath.ts';
import { type JsonPathList, parseJsonPath } from './jsonpath-parse.ts';

/** CREATION_TIMESTAMP_DESCRIPTION is ObjectMeta's swagger text for creationTimestamp, the default Age column's description. */
const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** DEFAULT_COLUMNS is what a version without additionalPrinterColumns is printed with. */
const DEFAULT_COLUMNS: readonly CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
];

/** servedColumns are the version's columns, or the default `Age` one when it declares none. */
function servedColumns(version: CustomResourceDefinitionVersion): readonly CustomResourceColumnDefinition[] {
  const columns = version.additionalPrinterColumns ?? [];
  return columns.length > 0 ? columns : DEFAULT_COLUMNS;
}

interface CompiledColumns {
  readonly columns: TableColumn[];
  readonly paths: readonly { readonly type: string; readonly path: JsonPathList }[];
}

/** Compiled per column list; a version object is replaced, not mutated, when its CRD changes. */
const compiled = new WeakMap<object, CompiledColumns>();

function compile(version: CustomResourceDefinitionVersion): CompiledColumns {
  const key = version.additionalPrinterColumns ?? version;
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  const columns: TableColumn[] = [NAME_COLUMN];
  const paths: { type: string; path: JsonPathList }[] = [];
  for (const column of servedColumns(version)) {
    let path: JsonPathList;
    try {
      path = parseJsonPath(`{${column.jsonPath}}`);
    } catch {
      // The apiserver falls back to the columns parsed so far (tableconvertor.New returns them with its error).
      break;
    }
    paths.push({ type: column.type, path });
    columns.push({
      name: column.name,
      type: column.type as TableColumn['type'],
      format: column.format ?? '',
      description:
        column.description !== undefined && column.description !== ''
          ? column.description
          : `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
      priority: column.priority ?? 0,
    });
  }
  const result = { columns, paths };
  compiled.set(key, result);
  return result;
}

/** printerColumns are a version's Table `columnDefinitions`: `Name`, then its printer columns (or `Age`). */
export function printerColumns(version: CustomResourceDefinitionVersion): TableColumn[] {
  return compile(version).columns;
}

/**
 * printerCells are one object's Table cells in `printerColumns` order. `now` (ms since the epoch)
 * is needed for `date` columns, which the apiserver sends as an age (`5m`); it defaults to the
 * current time.
 */
export function printerCells(version: CustomResourceDefinitionVersion, object: unknown, now: number = Date.now()): unknown[] {
  const { paths } = compile(version);
  const metadata = isRecord(object) && isRecord(object['metadata']) ? object['metadata'] : {};
  const cells: unknown[] = [typeof metadata['name'] === 'string' ? metadata['name'] : ''];
  for (const { type, path } of paths) {
    let results: unknown[][];
    try {
      results = evaluateJsonPath(path, object, { allowMissingKeys: true });
    } catch {
      cells.push(null);
      continue;
    }
    const first = results[0];
    if (first === undefined || first.length === 0) {
      cells.push(null);
      continue;
    }
    const value = first[0];
    if (type !== 'string') cells.push(cellForJsonValue(type, value, now));
    else if (value === null) cells.push('<no value>');
    else {
      try {
        cells.push(printJsonPathResults([value]));
      } catch {
        cells.push(null);
      }
    }
  }
  return cells;
}

/** cellForJsonValue types a non-string column's value as the tableconvertor does; anything else is null. */
function cellForJsonValue(type: string, value: unknown, now: number): unknown {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/** dateCell is metav1.Time's query-parameter parse (RFC 3339, `""`/`null` → zero time) then a human age. */
function dateCell(value: string, now: number): string {
  if (value === '' || value === 'null') return '<unknown>';
  if (!RFC3339.test(value)) return '<invalid>';
  const at = Date.parse(value);
  return Number.isNaN(at) ? '<invalid>' : humanDuration(now - at);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
