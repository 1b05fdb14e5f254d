/**
 * The views a CustomResourceDefinition serves: one per served version (all over one store kind,
 * the objects kept in the storage version's form — with `conversion: None` only `apiVersion`
 * differs, and the registry writes the request's), each with its `/status` and `/scale` views
 * when the version declares them. Bodies decode as the apiextensions apiserver decodes custom
 * resources: unstructured JSON, pruned and defaulted by the request version's structural schema
 * (crd/schema), then validated by the schema's value rules (ratcheted against the stored object
 * on updates), the scale paths and `x-kubernetes-validations` (crd/cel); a `/status` write is
 * validated by the status sub-schema. Reads from storage are pruned and defaulted by the storage
 * version's schema, then pruned by the version read, so objects stored under an older schema
 * read with the storage version's new defaults.
 */
import type { FieldError } from '../apimachinery/field-errors.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import { decodeWithSchema, type SchemaSet } from '../apimachinery/schema.ts';
import { methodNotSupported, StatusError } from '../apimachinery/status.ts';
import type { AnyView, ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { listSchema, META_SCHEMAS, OBJECT_META } from '../resources/meta-schemas.ts';
import { compileSchemaRules, hasValidationRules, type SchemaRules } from './cel/index.ts';
import { printerCells, printerColumns, validateScaleSpec, validateScaleStatus } from './definition/index.ts';
import { customScaleView } from './custom-scale.ts';
import { defaultCustomObject, pruneCustomObject, ssaSchemaSet, validateCustomObject, validateCustomStatus } from './schema/index.ts';
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
} from './types.ts';
import { crdStorageVersionHash, customResourceVerbs, defaultDeprecationWarning, versionPriority } from './version-facts.ts';
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
  /** hasRules: the schema has `x-kubernetes-validations` (the apiserver has a CEL validator for it). */
  readonly hasRules: boolean;
  readonly statusSubresource: boolean;
  readonly scale: CustomResourceSubresourceScale | undefined;
  /** readStored is a stored object as a read through this version sees it (the storage version's schema, then this one's): the old object of an update, what `oldSelf` is. */
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

/** CustomChecks are one version's validations of a written object: the main resource's and the `/status` subresource's. */
interface CustomChecks {
  readonly object: (object: CustomObject, old: CustomObject | undefined) => FieldError[];
  readonly status: (object: CustomObject, old: CustomObject) => FieldError[];
  /** warnings are the CEL rules' warnings (ratcheted errors) of an object just checked. */
  readonly warnings: (object: CustomObject) => string[];
}

/**
 * customChecks validates as the apiserver's custom resource strategy does, in its order: the
 * schema (ratcheted against the stored object on updates), the scale paths, embedded resources
 * and list types, then the `x-kubernetes-validations` rules — unless an error already blocks
 * them, which is reported only when the schema has rules at all. A `/status` write checks the
 * status sub-schema and the scale status paths instead of the whole schema.
 */
function customChecks(parts: CustomResourceParts): CustomChecks {
  const { names, version, schema, rules, hasRules, scale, readStored } = parts;
  const apiVersion = `${parts.crd.spec.group}/${version.name}`;
  const ruleWarnings = new WeakMap<object, string[]>();
  const typed = (object: CustomObject): CustomObject => ({ ...object, apiVersion, kind: names.kind });
  const withRules = (
    object: CustomObject,
    errors: FieldError[],
    typedObject: CustomObject,
    typedOld: CustomObject | undefined,
    ratcheting = true,
  ): FieldError[] => {
    if (!hasRules) {
      ruleWarnings.set(object, []);
      return errors;
    }
    // As the apiserver's hasBlockingErr: rules are not run on an object whose shape is already wrong.
    if (errors.some((error) => BLOCKING_ERRORS.has(error.type))) {
      ruleWarnings.set(object, []);
      return [...errors, RULES_NOT_CHECKED];
    }
    const ruled = rules.validate(typedObject, typedOld, { ratcheting });
    ruleWarnings.set(object, ruled.warnings);
    return [...errors, ...ruled.errors];
  };
  return {
    object(object, old) {
      const typedObject = typed(object);
      const typedOld = old === undefined ? undefined : typed(readStored(old));
      const scaleErrors = scale === undefined ? [] : [...validateScaleSpec(scale, typedObject), ...validateScaleStatus(scale, typedObject)];
      return withRules(object, validateCustomObject(schema, typedObject, typedOld, scaleErrors), typedObject, typedOld);
    },
    status(object, old) {
      const typedObject = typed(object);
      const typedOld = typed(readStored(old));
      const scaleErrors = scale === undefined ? [] : validateScaleStatus(scale, typedObject);
      // The status strategy runs the rules without ratcheting (no correlated object is given to them).
      return withRules(object, validateCustomStatus(schema, typedObject, typedOld, scaleErrors), typedObject, typedOld, false);
    },
    warnings: (object) => ruleWarnings.get(object) ?? [],
  };
}

/** customStrategy is one version's behaviour in the generic registry. */
function customStrategy(parts: CustomResourceParts, checks: CustomChecks): ResourceStrategy<CustomObject> {
  const { crd, names, version, statusSubresource, readStored } = parts;
  const group = crd.spec.group;
  const apiVersion = `${group}/${version.name}`;
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
      // The old status as storage reads it (the storage version's defaults), as the apiserver copies it.
      if (statusSubresource) {
        const status = readStored(old)['status'];
        if (status === undefined) delete object['status'];
        else object['status'] = structuredClone(status);
      }
      const generation = old.metadata.generation ?? 1;
      // The old object as storage reads it (today's defaults), as the apiserver compares them.
      const before = generationText(readStored(old), statusSubresource);
      object.metadata.generation = generationText(object, statusSubresource) === before ? generation : generation + 1;
    },
    validate: (object) => checks.object(object, undefined),
    validateUpdate: (object, old) => checks.object(object, old),
    warnings: (object) => checks.warnings(object),
    canonicalize: () => undefined,
    tableColumns: columns,
    tableRow: (object, now) => printerCells(version, { ...object, apiVersion, kind: names.kind }, now),
  };
}

/** customStatusStrategy is the `/status` subresource's: only `status` changes (the rest is the stored object's), `generation` never, and only status is validated. */
function customStatusStrategy(main: ResourceStrategy<CustomObject>, checks: CustomChecks, parts: CustomResourceParts): ResourceStrategy<CustomObject> {
  return {
    ...main,
    prepareForCreate: () => undefined,
    // The rest of the object is the stored one as storage reads it (the storage version's defaults), as the apiserver copies it.
    prepareForUpdate: (object, old) => keepStatusOnly(object, parts.readStored(old)),
    validateUpdate: (object, old) => checks.status(object, old),
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

/**
 * readerOf is how one served version reads a stored object, as the apiserver's storage codec and
 * converter do: the object (kept in the storage version's form) pruned and defaulted by the
 * storage version's schema, then converted to this version (`conversion: None`: the same fields)
 * and pruned by its schema. A version's own defaults apply to what is written through it, not to
 * reads. Each stored object is read once per view.
 */
function readerOf(schema: JSONSchemaProps, storageSchema: JSONSchemaProps): (stored: CustomObject) => CustomObject {
  const read = new WeakMap<object, CustomObject>();
  return (stored) => {
    let external = read.get(stored);
    if (external === undefined) {
      const { metadata, ...rest } = stored;
      const inStorage = defaultCustomObject(storageSchema, pruneCustomObject(storageSchema, rest).object);
      const converted = schema === storageSchema ? inStorage : pruneCustomObject(schema, inStorage).object;
      external = { ...converted, metadata } as CustomObject;
      read.set(stored, external);
    }
    return external;
  };
}

/**
 * customResourceViews are the views one accepted CRD serves (none for a CRD whose names are not
 * accepted): per served version, in discovery's version order, the resource, then its status and
 * scale subresources (the order discovery lists them in).
 */
export function customResourceViews(crd: CustomResourceDefinition): AnyView[] {
  const established = (crd.status?.conditions ?? []).some((condition) => condition.type === 'Established' && condition.status === 'True');
  const names = crd.status?.acceptedNames;
  if (!established || names === undefined || names.plural === '' || names.kind === '') return [];
  const group = crd.spec.group;
  const served = crd.spec.versions.filter((version) => version.served).sort((a, b) => versionPriority(a.name, b.name));
  const storageVersion = crd.spec.versions.find((version) => version.storage);
  const storageSchema = storageVersion?.schema?.openAPIV3Schema ?? PERMISSIVE_SCHEMA;
  const hash = crdStorageVersionHash(crd.spec);
  const verbs = customResourceVerbs(crd.status?.conditions ?? []);
  return served.flatMap((version) => {
    const ownSchema = version.schema?.openAPIV3Schema ?? PERMISSIVE_SCHEMA;
    // The storage version's own views read with the very schema object, so nothing is pruned twice.
    const schema = version === storageVersion ? storageSchema : ownSchema;
    const compiled = compileSchemaRules(schema, `spec.versions[${crd.spec.versions.indexOf(version)}].schema.openAPIV3Schema`);
    const statusSubresource = version.subresources?.status !== undefined && version.subresources.status !== null;
    const scale = version.subresources?.scale ?? undefined;
    const toExternal = readerOf(schema, storageSchema);
    const parts: CustomResourceParts = {
      crd,
      names,
      version,
      schema,
      rules: compiled.rules,
      hasRules: hasValidationRules(schema),
      statusSubresource,
      scale,
      readStored: toExternal,
    };
    const checks = customChecks(parts);
    const strategy = customStrategy(parts, checks);
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
      ...(deprecated ? { deprecationWarning: version.deprecationWarning ?? defaultDeprecationWarning(version.name, crd.spec) } : {}),
      ...(hash === undefined ? {} : { storageVersionHash: hash }),
      discoveryVerbs: verbs,
    };
    const views: AnyView[] = [main as unknown as AnyView];
    if (statusSubresource) views.push({ ...main, subresource: 'status', strategy: customStatusStrategy(strategy, checks, parts) } as unknown as AnyView);
    if (scale !== undefined) views.push(customScaleView(main, scale) as unknown as AnyView);
    return views;
  });
}
