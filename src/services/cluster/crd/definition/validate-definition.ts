/**
 * The apiserver's validation of a CustomResourceDefinition object (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation`: ValidateCustomResourceDefinition and …Update), on the
 * internal form of the spec (identical per-version parts hoisted to the top level), with the
 * real field paths and texts. Each schema goes through the structural-schema checks
 * (`../schema`) and, when those pass, the CEL rule checks (`../cel`). Generic metadata rules
 * (name syntax, labels, immutable metadata) are the registry's; only the CRD's own name rule is here.
 */
import { isDeepStrictEqual } from 'node:util';
import { type FieldError, GoLiteral, immutable, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isDns1123Subdomain } from '../../apimachinery/name-rules.ts';
import { compileSchemaRules } from '../cel/index.ts';
import { validateStructuralSchema } from '../schema/index.ts';
import type { CustomResourceColumnDefinition, CustomResourceDefinition, JSONSchemaProps } from '../types.ts';
import { API_APPROVED_ANNOTATION, apiApprovalState, isProtectedCommunityGroup } from './api-approval.ts';
import { caBundleProblem } from './ca-bundle.ts';
import { defaultCustomResourceDefinition } from './defaults.ts';
import { isDns1035Label } from '../../apimachinery/name-rules.ts';
import { type InternalSpec, type Subresources, toInternal, versionsLiteral } from './internal-form.ts';
import { validateSelectableFields } from './selectable-fields.ts';
import { validateNames } from './validate-names.ts';
import { validateConversion } from './validate-conversion.ts';

const PRINTER_COLUMN_TYPES = 'boolean,date,integer,number,string';
/** PER_EXPRESSION_COST matches the per-rule static cost errors (not the whole schema's total). */
const PER_EXPRESSION_COST = /^estimated (rule|messageExpression) cost exceeds budget by factor of /;
const PRINTER_COLUMN_FORMATS = 'byte,date,date-time,double,float,int32,int64,password';

/**
 * validateCustomResourceDefinition checks a CRD being created (`old` undefined) or updated, as
 * the apiserver does after defaulting; the object is defaulted here first (singular, listKind,
 * conversion, stored versions), so a caller may pass it as received.
 */
export function validateCustomResourceDefinition(input: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  const crd = defaultCustomResourceDefinition(input, old);
  const errors: FieldError[] = [];
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  const names = spec.names ?? ({} as CustomResourceDefinition['spec']['names']);

  const name = crd.metadata?.name ?? '';
  if (name !== '' && name !== `${names.plural ?? ''}.${spec.group ?? ''}`) {
    errors.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }

  errors.push(...validateSpec(crd, allowInvalidCABundle(old), unchangedSchemas(crd, old)));
  if (old !== undefined) {
    const established = (old.status?.conditions ?? []).some((condition) => condition.type === 'Established' && condition.status === 'True');
    if (established) {
      if (spec.scope !== old.spec.scope) errors.push(immutable('spec.scope', spec.scope));
      if (names.kind !== old.spec.names.kind) errors.push(immutable('spec.names.kind', names.kind));
    }
    if (spec.group !== old.spec.group) errors.push(immutable('spec.group', spec.group));
    if (names.plural !== old.spec.names.plural) errors.push(immutable('spec.names.plural', names.plural));
  }
  errors.push(...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'));
  errors.push(...validateStoredVersions(crd, old === undefined || crd.status?.storedVersions === undefined));
  errors.push(...validateApiApproval(crd, old));
  if (spec.preserveUnknownFields === true && old?.spec.preserveUnknownFields !== true) {
    errors.push(
      invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'),
    );
  }
  return errors;
}

/**
 * allowInvalidCABundle: a bad conversion CA bundle is accepted on create, before the CRD is
 * Established, and while the stored one is bad too (so a controller updating other fields is not refused).
 */
function allowInvalidCABundle(old: CustomResourceDefinition | undefined): boolean {
  if (old === undefined) return true;
  if (!(old.status?.conditions ?? []).some((condition) => condition.type === 'Established' && condition.status === 'True')) return true;
  const clientConfig = old.spec.conversion?.webhook?.clientConfig as { caBundle?: unknown } | undefined | null;
  const caBundle = typeof clientConfig?.caBundle === 'string' ? clientConfig.caBundle : '';
  if (caBundle === '') return false;
  return caBundleProblem(caBundle) !== undefined;
}

/**
 * unchangedSchemas are the versions whose schema an update leaves as it was
 * (findVersionsWithUnchangedSchemas): their rules are not held to the per-expression cost limit
 * again, so a CRD accepted before stays updatable.
 */
function unchangedSchemas(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): ReadonlySet<string> {
  const unchanged = new Set<string>();
  if (old === undefined) return unchanged;
  const schemaOf = (of: CustomResourceDefinition, name: string) =>
    (Array.isArray(of.spec?.versions) ? of.spec.versions : []).find((version) => version?.name === name)?.schema;
  for (const version of Array.isArray(crd.spec?.versions) ? crd.spec.versions : []) {
    const before = schemaOf(old, version.name);
    if (before !== undefined && isDeepStrictEqual(before, version.schema)) unchanged.add(version.name);
  }
  return unchanged;
}

function validateSpec(crd: CustomResourceDefinition, allowBadCABundle: boolean, unchanged: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec;
  const internal = toInternal(spec);
  const group = typeof spec.group === 'string' ? spec.group : '';
  if (group === '') errors.push(required('spec.group'));
  else {
    const problems = isDns1123Subdomain(group);
    if (problems.length > 0) errors.push(invalid('spec.group', group, problems.join(',')));
    else if (group.split('.').length < 2) errors.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = typeof spec.scope === 'string' ? spec.scope : '';
  if (scope === '') errors.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errors.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  if (internal.validation === undefined) {
    for (const [index, version] of internal.versions.entries()) {
      if (version.schema === undefined) errors.push(required(`spec.versions[${index}].schema.openAPIV3Schema`, 'schemas are required'));
    }
  }
  if (spec.preserveUnknownFields === true && hasDefaults(internal)) {
    errors.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  for (const [index, version] of internal.versions.entries()) {
    const path = `spec.versions[${index}]`;
    if (version.storage) storageCount++;
    if (seen.has(version.name)) unique = false;
    else seen.add(version.name);
    const problems = isDns1035Label(version.name);
    if (problems.length > 0) errors.push(invalid(`${path}.name`, version.name, problems.join(',')));
    const subresources = internal.subresources ?? version.subresources;
    errors.push(...validateDeprecationWarning(version.deprecated, version.deprecationWarning, `${path}.deprecationWarning`));
    errors.push(
      ...validateSchema(
        version.schema,
        { status: subresources?.status !== undefined, scale: subresources?.scale !== undefined },
        `${path}.schema`,
        unchanged.has(version.name),
      ),
    );
    errors.push(...validateSubresources(version.subresources, `${path}.subresources`));
    for (const [at, column] of version.additionalPrinterColumns.entries()) errors.push(...validateColumn(column, `${path}.additionalPrinterColumns[${at}]`));
    if (version.selectableFields.length > 0) {
      if (version.schema === undefined)
        errors.push(invalid(`${path}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
      else errors.push(...validateSelectableFields(version.selectableFields, version.schema, `${path}.selectableFields`));
    }
  }
  if (!unique) errors.push(invalid('spec.versions', versionsLiteral(internal.versions), 'must contain unique version names'));
  if (storageCount !== 1) errors.push(invalid('spec.versions', versionsLiteral(internal.versions), 'must have exactly one version marked as storage version'));
  if (internal.version !== '') {
    const problems = isDns1035Label(internal.version);
    if (problems.length > 0) errors.push(invalid('spec.version', internal.version, problems.join(',')));
  }

  const names = spec.names ?? {};
  if (!nonEmpty(names.plural)) errors.push(required('spec.names.plural'));
  if (!nonEmpty(names.singular)) errors.push(required('spec.names.singular'));
  if (!nonEmpty(names.kind)) errors.push(required('spec.names.kind'));
  if (!nonEmpty(names.listKind)) errors.push(required('spec.names.listKind'));
  errors.push(...validateNames(names, 'spec.names'));

  const anyStatus = internal.subresources?.status !== undefined || internal.versions.some((version) => version.subresources?.status !== undefined);
  const anyScale = internal.subresources?.scale !== undefined || internal.versions.some((version) => version.subresources?.scale !== undefined);
  errors.push(...validateSchema(internal.validation, { status: anyStatus, scale: anyScale }, 'spec.validation', unchanged.has(internal.version)));
  errors.push(...validateSubresources(internal.subresources, 'spec.subresources'));
  for (const [at, column] of internal.additionalPrinterColumns.entries()) errors.push(...validateColumn(column, `spec.additionalPrinterColumns[${at}]`));
  if (internal.selectableFields.length > 0) {
    if (internal.validation === undefined)
      errors.push(invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    else errors.push(...validateSelectableFields(internal.selectableFields, internal.validation, 'spec.selectableFields'));
  }

  if (spec.conversion !== undefined && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields === true) {
    errors.push(invalid('spec.conversion.strategy', spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errors.push(...validateConversion(spec.conversion, 'spec.conversion', allowBadCABundle));
  return errors;
}

/** validateSchema runs the structural checks and, when they pass, the CEL rule checks on one schema. */
function validateSchema(
  schema: JSONSchemaProps | undefined,
  enabled: { readonly status: boolean; readonly scale: boolean },
  path: string,
  suppressPerExpressionCost: boolean,
): FieldError[] {
  if (schema === undefined) return [];
  const at = `${path}.openAPIV3Schema`;
  const structural = validateStructuralSchema(schema, at, { statusSubresource: enabled.status, scaleSubresource: enabled.scale });
  if (structural.length > 0) return structural;
  const errors = compileSchemaRules(schema, at).errors;
  return suppressPerExpressionCost ? errors.filter((error) => !PER_EXPRESSION_COST.test(error.detail)) : errors;
}

/** validateSubresources checks the scale paths: simple JSON paths under `.spec` / `.status`. */
function validateSubresources(subresources: Subresources | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const scale = subresources?.scale;
  if (scale === undefined || scale === null) return errors;
  const check = (field: string, value: unknown, prefixes: readonly string[], detail: string): void => {
    const at = `${path}.scale.${field}`;
    const text = typeof value === 'string' ? value : '';
    const problems = simpleJsonPathProblems(text, at);
    if (problems.length > 0) errors.push(...problems);
    else if (!prefixes.some((prefix) => text.startsWith(prefix))) errors.push(invalid(at, text, detail));
  };
  if (!nonEmpty(scale.specReplicasPath)) errors.push(required(`${path}.scale.specReplicasPath`));
  else check('specReplicasPath', scale.specReplicasPath, ['.spec.'], 'should be a json path under .spec');
  if (!nonEmpty(scale.statusReplicasPath)) errors.push(required(`${path}.scale.statusReplicasPath`));
  else check('statusReplicasPath', scale.statusReplicasPath, ['.status.'], 'should be a json path under .status');
  if (nonEmpty(scale.labelSelectorPath))
    check('labelSelectorPath', scale.labelSelectorPath, ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  return errors;
}

/** simpleJsonPathProblems is validateSimpleJSONPath: a path that starts with a dot. */
function simpleJsonPathProblems(text: string, path: string): FieldError[] {
  if (text === '') return [invalid(path, text, 'must not be empty')];
  if (!text.startsWith('.')) return [invalid(path, text, 'must be a simple json path starting with .')];
  return [];
}

/** validateColumn is ValidateCustomResourceColumnDefinition (note the Go field name `JSONPath` in its paths). */
function validateColumn(column: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!nonEmpty(column.name)) errors.push(required(`${path}.name`));
  const type = typeof column.type === 'string' ? column.type : '';
  if (type === '') errors.push(required(`${path}.type`, `must be one of ${PRINTER_COLUMN_TYPES}`));
  else if (!PRINTER_COLUMN_TYPES.split(',').includes(type)) errors.push(invalid(`${path}.type`, type, `must be one of ${PRINTER_COLUMN_TYPES}`));
  const format = typeof column.format === 'string' ? column.format : '';
  if (format !== '' && !PRINTER_COLUMN_FORMATS.split(',').includes(format))
    errors.push(invalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS}`));
  const jsonPath = typeof column.jsonPath === 'string' ? column.jsonPath : '';
  if (jsonPath === '') errors.push(required(`${path}.JSONPath`));
  else errors.push(...simpleJsonPathProblems(jsonPath, `${path}.JSONPath`));
  return errors;
}

/** validateDeprecationWarning checks the warning text of a deprecated version. */
function validateDeprecationWarning(deprecated: boolean, warning: string | undefined, path: string): FieldError[] {
  if (warning === undefined) return [];
  if (!deprecated) return [invalid(path, warning, 'can only be set for deprecated versions')];
  const problems: string[] = [];
  if (Buffer.byteLength(warning, 'utf8') > 256) problems.push('must be <= 256 characters long');
  if (warning.length === 0) problems.push('must not be an empty string');
  let offset = 0;
  for (const char of warning) {
    if (/\p{Cc}/u.test(char)) {
      problems.push(`must only contain printable UTF-8 characters; control character found at index ${offset}`);
      break;
    }
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    offset += Buffer.byteLength(char, 'utf8');
  }
  return problems.map((problem) => invalid(path, warning, problem));
}

/** validateStoredVersions is ValidateCustomResourceDefinitionStoredVersions. */
function validateStoredVersions(crd: CustomResourceDefinition, nilWhenEmpty: boolean): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = 'status.storedVersions';
  // On create the strategy resets status, so an empty list is Go's nil slice.
  if (stored.length === 0) return [invalid(path, nilWhenEmpty ? new GoLiteral('[]string(nil)') : stored, 'must have at least one stored version')];
  const errors: FieldError[] = [];
  const remaining = new Map<string, number>();
  for (const [index, version] of stored.entries()) remaining.set(version, index);
  for (const version of crd.spec.versions ?? []) {
    const present = remaining.has(version.name);
    if (version.storage && !present) errors.push(invalid(path, stored, `must have the storage version ${version.name}`));
    if (present) remaining.delete(version.name);
  }
  for (const [version, index] of remaining) errors.push(invalid(`${path}[${index}]`, version, 'must appear in spec.versions'));
  return errors;
}

/** validateApiApproval requires the approval annotation on protected groups, unless its state did not change on update. */
function validateApiApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec.group ?? '')) return [];
  const next = apiApprovalState(crd.metadata.annotations);
  if (old !== undefined && apiApprovalState(old.metadata.annotations).state === next.state) return [];
  const path = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  const value = crd.metadata.annotations?.[API_APPROVED_ANNOTATION] ?? '';
  switch (next.state) {
    case 'missing':
      return [required(path, next.reason)];
    case 'invalid':
      return [invalid(path, value, next.reason)];
    default:
      return [];
  }
}

function hasDefaults(internal: InternalSpec): boolean {
  const schemas = [internal.validation, ...internal.versions.map((version) => version.schema)];
  return schemas.some((schema) => schema !== undefined && schemaHas(schema, (node) => node.default !== undefined));
}

/** schemaHas visits every schema node (properties, items, combinators, additionalProperties…) until `predicate` holds. */
export function schemaHas(schema: JSONSchemaProps, predicate: (node: JSONSchemaProps) => boolean): boolean {
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const props = node as JSONSchemaProps;
    if (predicate(props)) return true;
    if (Array.isArray(props.items)) pending.push(...props.items);
    else pending.push(props.items);
    pending.push(...(props.allOf ?? []), ...(props.anyOf ?? []), ...(props.oneOf ?? []), props.not);
    if (typeof props.additionalProperties === 'object') pending.push(props.additionalProperties);
    if (typeof props.additionalItems === 'object') pending.push(props.additionalItems);
    for (const map of [props.properties, props.patternProperties, props.definitions])
      if (map !== undefined && map !== null) pending.push(...Object.values(map));
    if (props.dependencies !== undefined && props.dependencies !== null)
      pending.push(...Object.values(props.dependencies).filter((value) => !Array.isArray(value)));
  }
  return false;
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * validateCustomResourceDefinitionStatus is what a `/status` write of a CRD is checked against
 * (ValidateUpdateCustomResourceDefinitionStatus): only the accepted names; metadata rules are the registry's.
 */
export function validateCustomResourceDefinitionStatus(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(crd.status?.acceptedNames, 'status.acceptedNames');
}
