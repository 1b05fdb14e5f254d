/**
 * The CRD spec as the apiserver validates it: converted from v1 to the internal
 * `apiextensions` type, where per-version schemas, subresources, printer columns and selectable
 * fields that are identical in every version move to the top level (so a one-version CRD's
 * schema errors read `spec.validation.openAPIV3Schema…`), and its Go `%#v` dump, which
 * `spec.versions: Invalid value: …` prints.
 */
import { isDeepStrictEqual } from 'node:util';
import { GoLiteral } from '../../apimachinery/field-errors.ts';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
} from '../types.ts';

/** Subresources is a version's (or the spec's) `subresources`. */
export type Subresources = NonNullable<CustomResourceDefinitionVersion['subresources']>;

/** InternalVersion is a version with its hoisted parts removed. */
export interface InternalVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning: string | undefined;
  readonly schema: JSONSchemaProps | undefined;
  readonly subresources: Subresources | undefined;
  readonly additionalPrinterColumns: readonly CustomResourceColumnDefinition[];
  readonly selectableFields: readonly { jsonPath: string }[];
}

/** InternalSpec holds the top-level (hoisted) parts and the versions. */
export interface InternalSpec {
  /** version is `versions[0].name`, which the internal type keeps and validates. */
  readonly version: string;
  readonly validation: JSONSchemaProps | undefined;
  readonly subresources: Subresources | undefined;
  readonly additionalPrinterColumns: readonly CustomResourceColumnDefinition[];
  readonly selectableFields: readonly { jsonPath: string }[];
  readonly versions: readonly InternalVersion[];
}

/** toInternal converts a v1 spec as Convert_v1_CustomResourceDefinitionSpec_To_apiextensions does. */
export function toInternal(spec: CustomResourceDefinitionSpec): InternalSpec {
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const first = versions[0];
  const identical = <T>(pick: (version: CustomResourceDefinitionVersion) => T): boolean =>
    first !== undefined && versions.every((version) => isDeepStrictEqual(normalize(pick(version)), normalize(pick(first))));
  const schemaOf = (version: CustomResourceDefinitionVersion): JSONSchemaProps | undefined => version.schema?.openAPIV3Schema;
  const columnsOf = (version: CustomResourceDefinitionVersion): readonly CustomResourceColumnDefinition[] => version.additionalPrinterColumns ?? [];
  const fieldsOf = (version: CustomResourceDefinitionVersion): readonly { jsonPath: string }[] => version.selectableFields ?? [];
  const hoistSchema = identical((version) => version.schema);
  const hoistSubresources = identical((version) => version.subresources);
  const hoistColumns = identical(columnsOf);
  const hoistFields = identical(fieldsOf);
  return {
    version: first?.name ?? '',
    validation: hoistSchema && first !== undefined ? schemaOf(first) : undefined,
    subresources: hoistSubresources ? first?.subresources : undefined,
    additionalPrinterColumns: hoistColumns && first !== undefined ? columnsOf(first) : [],
    selectableFields: hoistFields && first !== undefined ? fieldsOf(first) : [],
    versions: versions.map((version) => ({
      name: version.name ?? '',
      served: version.served === true,
      storage: version.storage === true,
      deprecated: version.deprecated === true,
      deprecationWarning: version.deprecationWarning,
      schema: hoistSchema ? undefined : schemaOf(version),
      subresources: hoistSubresources ? undefined : version.subresources,
      additionalPrinterColumns: hoistColumns ? [] : columnsOf(version),
      selectableFields: hoistFields ? [] : fieldsOf(version),
    })),
  };
}

/** normalize makes absent and empty lists equal, as equality.Semantic does. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 0) return undefined;
  return value;
}

/**
 * versionsLiteral prints the internal versions as Go's `%#v` does. Pointers print as addresses
 * in Go; these are stable stand-ins of the same shape, since the real ones differ on every call.
 */
export function versionsLiteral(versions: readonly InternalVersion[]): GoLiteral {
  let address = 0xc000a1c000;
  const pointer = (type: string, present: boolean): string => {
    if (!present) return `(*${type})(nil)`;
    address += 0x60;
    return `(*${type})(0x${address.toString(16)})`;
  };
  const items = versions.map((version) => {
    const columns =
      version.additionalPrinterColumns.length === 0
        ? '[]apiextensions.CustomResourceColumnDefinition(nil)'
        : `[]apiextensions.CustomResourceColumnDefinition{${version.additionalPrinterColumns.map(columnLiteral).join(', ')}}`;
    const fields =
      version.selectableFields.length === 0
        ? '[]apiextensions.SelectableField(nil)'
        : `[]apiextensions.SelectableField{${version.selectableFields.map((field) => `apiextensions.SelectableField{JSONPath:${goQuote(field.jsonPath ?? '')}}`).join(', ')}}`;
    return (
      `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(version.name)}, Served:${version.served}, Storage:${version.storage}, ` +
      `Deprecated:${version.deprecated}, DeprecationWarning:${pointer('string', version.deprecationWarning !== undefined)}, ` +
      `Schema:${pointer('apiextensions.CustomResourceValidation', version.schema !== undefined)}, ` +
      `Subresources:${pointer('apiextensions.CustomResourceSubresources', version.subresources !== undefined)}, ` +
      `AdditionalPrinterColumns:${columns}, SelectableFields:${fields}}`
    );
  });
  return new GoLiteral(`[]apiextensions.CustomResourceDefinitionVersion{${items.join(', ')}}`);
}

function columnLiteral(column: CustomResourceColumnDefinition): string {
  return (
    `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(column.name ?? '')}, Type:${goQuote(column.type ?? '')}, Format:${goQuote(column.format ?? '')}, ` +
    `Description:${goQuote(column.description ?? '')}, Priority:${column.priority ?? 0}, JSONPath:${goQuote(column.jsonPath ?? '')}}`
  );
}

/** goQuote is Go's strconv.Quote for the characters CRD fields hold: printable text kept, control characters escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (char === '\x07') out += '\\a';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (char === '\v') out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** scaleOfSubresources is the scale subresource, if any. */
export function scaleOfSubresources(subresources: Subresources | undefined): CustomResourceSubresourceScale | undefined {
  return subresources?.scale ?? undefined;
}
