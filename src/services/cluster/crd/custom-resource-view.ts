/**
 * The views a CustomResourceDefinition serves: one per served version (all over one store kind,
 * the objects kept in the storage version's form — with `conversion: None` only `apiVersion`
 * differs, and the registry writes the request's), each with its `/status` and `/scale` views
 * when the version declares them. Bodies decode as the apiextensions apiserver decodes custom
 * resources: unstructured JSON, pruned and defaulted by the version's structural schema
 * (crd/schema), then validated by the schema's value rules and `x-kubernetes-validations`
 * (crd/cel); reads from storage are pruned and defaulted again, so objects stored under an older
 * schema read with its new defaults.
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { decodeWithSchema, type SchemaSet } from '../apimachinery/schema.ts';
import { methodNotSupported, StatusError } from '../apimachinery/status.ts';
import type { AnyView, ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { listSchema, META_SCHEMAS, OBJECT_META } from '../resources/meta-schemas.ts';
import { compileSchemaRules, type SchemaRules } from './cel/index.ts';
import { printerCells, printerColumns } from './definition/index.ts';
import { customScaleView } from './custom-scale.ts';
import { defaultCustomObject, pruneCustomObject, ssaSchemaSet, validateCustomObject } from './schema/index.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion, JSONSchemaProps } from './types.ts';
import { keepStatusOnly } from '../builtin/generic-strategy.ts';

/** CustomObject is a stored custom resource: metadata plus whatever its schema allows. */
export type CustomObject = KubeObject & Record<string, unknown>;

/** CUSTOM_PATCH_TYPES are the PATCH media types custom resources accept: no strategic merge patch, as the apiserver answers with 415. */
export const CUSTOM_PATCH_TYPES: readonly string[] = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** CRD_CLEANUP_FINALIZER is the finalizer a deleted CRD carries while its instances are removed. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** customStoreKindOf is where a CRD's instances are stored (every version's). */
export function customStoreKindOf(crdName: string): string {
  return `cluster/customresources/${crdName}`;
}

/** PERMISSIVE_SCHEMA stands for a version without a schema (only possible for CRDs stored before schemas were required). */
const PERMISSIVE_SCHEMA: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** schemaNameOf is the OpenAPI component name the apiserver gives a custom resource: the reversed group, the version, the kind. */
export function schemaNameOf(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** sortedJson serialises with keys sorted, so key order never reads as a change. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** generationText is what a change of bumps `generation`: everything but metadata (and status, with a status subresource). */
function generationText(object: CustomObject, statusSubresource: boolean): string {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = object;
  if (statusSubresource) delete rest['status'];
  return sortedJson(rest);
}

/** terminating is the 405 a create gets while its CRD is being deleted (the apiserver's crdHandler). */
function terminating(group: string, resource: string): StatusError {
  const error = methodNotSupported({ group, resource }, 'create');
  return new StatusError(405, error.reason, 'create not allowed while custom resource definition is terminating', error.details);
}

/** readPath reads a simple JSONPath (`.spec.color`) of an object, for selectable fields. */
function readPath(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.split('.').filter((segment) => segment !== '')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** fieldValueText is a selectable field's value as a field selector compares it. */
function fieldValueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** openApiSchemaOf is the CR's schema as the apiserver publishes it: the version's schema with apiVersion, kind and metadata added and its group-version-kind. */
function openApiSchemaOf(schema: JSONSchemaProps, gvk: { group: string; version: string; kind: string }): Record<string, unknown> {
  const copy = structuredClone(schema) as Record<string, unknown>;
  const properties = { ...((copy['properties'] as Record<string, unknown> | undefined) ?? {}) };
  delete properties['metadata'];
  return {
    ...copy,
    type: 'object',
    properties: {
      apiVersion: {
        description:
          'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
        type: 'string',
      },
      kind: {
        description:
          'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
        type: 'string',
      },
      metadata: {
        allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
        description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
      },
      ...properties,
    },
    'x-kubernetes-group-version-kind': [gvk],
  };
}

/** CustomResourceParts are what the views of one version share: the CRD, the version, its schema and compiled rules. */
interface CustomResourceParts {
  readonly crd: CustomResourceDefinition;
  readonly names: CustomResourceDefinitionNames;
  readonly version: CustomResourceDefinitionVersion;
  readonly schema: JSONSchemaProps;
  readonly rules: SchemaRules;
  readonly statusSubresource: boolean;
  /** readStored is a stored object as a read sees it (pruned and defaulted by today's schema): what `oldSelf` is. */
  readonly readStored: (stored: CustomObject) => CustomObject;
}

/** BLOCKING_ERRORS are the schema errors after which CEL rules are not run (the apiserver's hasBlockingErr). */
const BLOCKING_ERRORS: ReadonlySet<FieldError['type']> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** RULES_NOT_CHECKED is the error the apiserver adds (at the nil path) when it skips the rules. */
const RULES_NOT_CHECKED: FieldError = {
  type: 'FieldValueInvalid',
  field: '<nil>',
  value: 'null',
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/** customStrategy is one version's behaviour in the generic registry. */
function customStrategy(parts: CustomResourceParts): ResourceStrategy<CustomObject> {
  const { crd, names, version, schema, rules, statusSubresource, readStored } = parts;
  const group = crd.spec.group;
  const apiVersion = `${group}/${version.name}`;
  // The CEL rules' warnings (ratcheted errors) of an object just validated, for `warnings`.
  const ruleWarnings = new WeakMap<object, string[]>();
  const check = (object: CustomObject, old: CustomObject | undefined): FieldError[] => {
    const typed = { ...object, apiVersion, kind: names.kind };
    const errors = validateCustomObject(schema, typed);
    // As the apiserver's hasBlockingErr: rules are not run on an object whose shape is already wrong.
    if (errors.some((error) => BLOCKING_ERRORS.has(error.type))) {
      ruleWarnings.set(object, []);
      return [...errors, RULES_NOT_CHECKED];
    }
    const ruled = rules.validate(typed, old === undefined ? undefined : { ...readStored(old), apiVersion, kind: names.kind });
    ruleWarnings.set(object, ruled.warnings);
    return [...errors, ...ruled.errors];
  };
  const columns = printerColumns(version);
  return {
    namespaced: crd.spec.scope === 'Namespaced',
    nameRule: 'dns-subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    invalidKind: { group, kind: names.kind },
    prepareForCreate(object) {
      if (crd.metadata.deletionTimestamp !== undefined) throw terminating(group, names.plural);
      // With a status subresource a new object's status is not the client's to set.
      if (statusSubresource) delete object['status'];
      object.metadata.generation = 1;
    },
    prepareForUpdate(object, old) {
      if (statusSubresource) {
        if (old['status'] === undefined) delete object['status'];
        else object['status'] = old['status'];
      }
      const generation = old.metadata.generation ?? 1;
      // The old object as storage reads it (today's defaults), as the apiserver compares them.
      const before = generationText(readStored(old), statusSubresource);
      object.metadata.generation = generationText(object, statusSubresource) === before ? generation : generation + 1;
    },
    validate: (object) => check(object, undefined),
    validateUpdate: (object, old) => check(object, old),
    warnings: (object) => ruleWarnings.get(object) ?? [],
    canonicalize: () => undefined,
    tableColumns: columns,
    tableRow: (object, now) => printerCells(version, { ...object, apiVersion, kind: names.kind }, now),
  };
}

/** customStatusStrategy is the `/status` subresource's: only `status` changes (the rest is the stored object's), `generation` never. */
function customStatusStrategy(main: ResourceStrategy<CustomObject>): ResourceStrategy<CustomObject> {
  return {
    ...main,
    prepareForCreate: () => undefined,
    prepareForUpdate: keepStatusOnly,
  };
}

/** decoderOf decodes a body of one version: metadata as ObjectMeta (Go-typed), the rest pruned and defaulted by the schema. */
function decoderOf(schema: JSONSchemaProps) {
  return (body: Record<string, unknown>) => {
    const unknownFields: string[] = [];
    let metadata: Record<string, unknown> | undefined;
    let typeError: string | undefined;
    const given = body['metadata'];
    if (given !== undefined && given !== null) {
      if (typeof given !== 'object' || Array.isArray(given)) {
        typeError = `json: cannot unmarshal ${Array.isArray(given) ? 'array' : typeof given === 'boolean' ? 'bool' : typeof given} into Go struct field .metadata of type v1.ObjectMeta`;
      } else {
        const decoded = decodeWithSchema(given as Record<string, unknown>, OBJECT_META, META_SCHEMAS);
        typeError = decoded.typeError;
        metadata = decoded.value;
        for (const field of decoded.unknownFields) unknownFields.push(`metadata.${field}`);
      }
    }
    const pruned = pruneCustomObject(schema, body);
    unknownFields.push(...pruned.unknownFields);
    const value = defaultCustomObject(schema, pruned.object);
    if (metadata === undefined) delete value['metadata'];
    else Object.defineProperty(value, 'metadata', { value: metadata, enumerable: true, writable: true, configurable: true });
    return { value, unknownFields, ...(typeError === undefined ? {} : { typeError }) };
  };
}

/** versionPriority orders Kubernetes versions as discovery does: GA, then beta, then alpha, newer first; others last by name. */
export function versionPriority(a: string, b: string): number {
  const parse = (name: string): [number, number, number, string] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
    if (match === null) return [3, 0, 0, name];
    const stage = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
    return [stage, -Number(match[1]), -Number(match[3] ?? 0), name];
  };
  const [x, y] = [parse(a), parse(b)];
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return (x[index] as number) - (y[index] as number);
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

/**
 * customResourceViews are the views one accepted CRD serves (none for a CRD whose names are not
 * accepted): per served version, in discovery's version order, the resource, then its scale and
 * status subresources.
 */
export function customResourceViews(crd: CustomResourceDefinition): AnyView[] {
  const established = (crd.status?.conditions ?? []).some((condition) => condition.type === 'Established' && condition.status === 'True');
  const names = crd.status?.acceptedNames;
  if (!established || names === undefined || names.plural === '' || names.kind === '') return [];
  const group = crd.spec.group;
  const served = crd.spec.versions.filter((version) => version.served).sort((a, b) => versionPriority(a.name, b.name));
  return served.flatMap((version) => {
    const schema = version.schema?.openAPIV3Schema ?? PERMISSIVE_SCHEMA;
    const compiled = compileSchemaRules(schema, `spec.versions[${crd.spec.versions.indexOf(version)}].schema.openAPIV3Schema`);
    const statusSubresource = version.subresources?.status !== undefined && version.subresources.status !== null;
    // Reads prune and default the stored object again (the schema may have changed since it was written), once per stored object.
    const read = new WeakMap<object, CustomObject>();
    const toExternal = (stored: CustomObject): CustomObject => {
      let external = read.get(stored);
      if (external === undefined) {
        const { metadata, ...rest } = stored;
        const pruned = pruneCustomObject(schema, rest).object;
        external = { ...defaultCustomObject(schema, pruned), metadata } as CustomObject;
        read.set(stored, external);
      }
      return external;
    };
    const parts: CustomResourceParts = { crd, names, version, schema, rules: compiled.rules, statusSubresource, readStored: toExternal };
    const strategy = customStrategy(parts);
    const kind = names.kind;
    const listKind = names.listKind ?? `${kind}List`;
    const schemaName = schemaNameOf(group, version.name, kind);
    const listSchemaName = schemaNameOf(group, version.name, listKind);
    const schemas: SchemaSet = {
      ...META_SCHEMAS,
      ...ssaSchemaSet(schema, schemaName),
      [listSchemaName]: listSchema(listKind, schemaName, `${listKind} is a list of ${kind}`),
    };
    const selectable = (version.selectableFields ?? []).map((field) => field.jsonPath);
    const decode = decoderOf(schema);
    const deprecated = version.deprecated === true;
    const main: ResourceView<CustomObject, CustomObject> = {
      group,
      version: version.name,
      resource: names.plural,
      singular: names.singular ?? kind.toLowerCase(),
      kind,
      listKind,
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      storeKind: customStoreKindOf(crd.metadata.name ?? ''),
      strategy,
      schemas,
      schemaName,
      listSchemaName,
      toExternal,
      toInternal: (external) => external,
      selectableFields: (object) => {
        const fields: Record<string, string> = { 'metadata.name': object.metadata.name ?? '' };
        if (crd.spec.scope === 'Namespaced') fields['metadata.namespace'] = object.metadata.namespace ?? '';
        for (const path of selectable) fields[path.replace(/^\./, '')] = fieldValueText(readPath(object, path));
        return fields;
      },
      decode,
      patchTypes: CUSTOM_PATCH_TYPES,
      typedListItems: true,
      openApiSchemas: { [schemaName]: openApiSchemaOf(schema, { group, version: version.name, kind }) },
      ...(deprecated ? { deprecationWarning: version.deprecationWarning ?? `${group}/${version.name} ${kind} is deprecated` } : {}),
    };
    const views: AnyView[] = [main as unknown as AnyView];
    const scale = version.subresources?.scale;
    if (scale !== undefined && scale !== null) views.push(customScaleView(main, scale) as unknown as AnyView);
    if (statusSubresource) views.push({ ...main, subresource: 'status', strategy: customStatusStrategy(strategy) } as unknown as AnyView);
    return views;
  });
}
