/**
 * The contract between the generic registry and one resource. A strategy describes how a stored
 * object is prepared, validated and shown; a view describes one group-version through which the
 * stored objects are served (an Event is stored once and served both as events.k8s.io/v1 and as
 * core v1). The registry runs the hooks in one fixed order, as the real server's BeforeCreate /
 * BeforeUpdate do: prepare → validate (resource rules, then metadata rules) → warnings → canonicalize.
 */
import type { FieldError } from './field-errors.ts';
import type { KubeObject, NameRule } from './object-meta.ts';
import type { SchemaSet } from './schema.ts';
import type { GroupKind } from './status.ts';

/** RequestInfo is what hooks may need about the request: the view it came through and the time. */
export interface RequestInfo {
  readonly view: ResourceView;
  /** Milliseconds since the epoch (from the injected clock). */
  readonly now: number;
}

/** TableColumn is one `columnDefinitions[]` entry of a Table. */
export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  readonly format: string;
  readonly description: string;
  /** 0 for the default columns; higher ones are shown by `-o wide`. */
  readonly priority: number;
}

/** ResourceStrategy is the per-resource behaviour, on the stored (internal) form of the object. */
export interface ResourceStrategy<T extends KubeObject = KubeObject> {
  /** namespaced resources live inside a namespace; cluster-scoped ones have it cleared on write. */
  readonly namespaced: boolean;
  /** nameRule is the syntax names must follow. */
  readonly nameRule: NameRule;
  /** allowCreateOnUpdate lets PUT to a missing name create the object (201). */
  readonly allowCreateOnUpdate: boolean;
  /** allowUnconditionalUpdate lets PUT without metadata.resourceVersion overwrite. */
  readonly allowUnconditionalUpdate: boolean;
  /** invalidKind is the kind named in 422 messages (the internal type's group). */
  readonly invalidKind: GroupKind;
  /** prepareForCreate normalises a new object (server-owned fields); may mutate; runs before validate. */
  prepareForCreate(object: T, request: RequestInfo): void;
  /** prepareForUpdate carries server-owned fields over from the old object; may mutate `object` only. */
  prepareForUpdate(object: T, old: T, request: RequestInfo): void;
  /**
   * validate checks a new object; must not mutate. The metadata rules (ObjectMeta with the
   * kind's name rule) come before its errors, as upstream's Validate<Kind> functions begin with
   * ValidateObjectMeta, unless `validatesObjectMeta`.
   */
  validate(object: T, request: RequestInfo): FieldError[];
  /**
   * validatesObjectMeta marks a kind whose own `validate` places the ObjectMeta rules itself, or
   * skips them (Event: after the legacy checks, and not at all for core/v1); the registry then
   * checks metadata only for an otherwise valid object, as rest.BeforeCreate's common check.
   */
  readonly validatesObjectMeta?: boolean;
  /** validateUpdate checks a changed object against its old state; must not mutate. The metadata rules come first, as rest.BeforeUpdate's common checks. */
  validateUpdate(object: T, old: T, request: RequestInfo): FieldError[];
  /** warnings are `path: message` texts sent as Warning headers; must not mutate. */
  warnings(object: T, old: T | undefined): string[];
  /** canonicalize puts a valid object in its stored form; may mutate; runs last. */
  canonicalize(object: T): void;
  /** tableColumns are the server-side printing columns (every one; kubectl hides priority > 0). */
  readonly tableColumns: readonly TableColumn[];
  /** tableRow is one object's cells, in column order. */
  tableRow(object: T, now: number): unknown[];
}

/** ResourceView is one group/version/resource through which a stored kind is served. */
export interface ResourceView<S extends KubeObject = KubeObject, E extends KubeObject = KubeObject> {
  /** The canonical (real) group, `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural resource name in URLs (`clusterroles`). */
  readonly resource: string;
  /**
   * The subresource this view serves (`status`: `…/{name}/status`, get/update/patch only), with
   * its own strategy over the same stored objects; absent for the resource itself.
   */
  readonly subresource?: string;
  /**
   * The wire type of a subresource whose objects are of another kind than the resource's
   * (`/scale`: `autoscaling/v1` `Scale`); absent when it is the view's own group, version and kind.
   */
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
  /** The resource's own view, for such a subresource: the fields it changes are tracked (managedFields) in the parent's form. */
  readonly parent?: ResourceView<S, E>;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** The store kind the objects live under (shared by views of the same objects). */
  readonly storeKind: string;
  readonly strategy: ResourceStrategy<S>;
  /** The schema set of this group-version and the component name of the kind. */
  readonly schemas: SchemaSet;
  readonly schemaName: string;
  readonly listSchemaName: string;
  /** toExternal converts a stored object into this view's form (without apiVersion/kind). */
  toExternal(stored: S): E;
  /** toInternal converts this view's form into the stored form. */
  toInternal(external: E): S;
  /**
   * selectableFields are the field-selector values of an object through this view; the key set
   * (identical for every object) is the set of supported field labels.
   */
  selectableFields(stored: S): Record<string, string>;
  /**
   * decode, when present, replaces the typed decoding of a body (after its TypeMeta checks):
   * custom resources decode as unstructured JSON, pruned and defaulted by their CRD's schema.
   * Returns the object, the dropped fields' paths, and a 400's text when the body cannot be read.
   */
  decode?(body: Record<string, unknown>): { readonly value: Record<string, unknown>; readonly unknownFields: readonly string[]; readonly typeError?: string };
  /** patchTypes, when present, are the PATCH content types served (custom resources have no strategic merge patch). */
  readonly patchTypes?: readonly string[];
  /** openApiSchemas, when present, are OpenAPI components published as given, over those rendered from `schemas` (a CRD's own schema). */
  readonly openApiSchemas?: Readonly<Record<string, unknown>>;
  /** typedListItems: list items carry `apiVersion` and `kind`, as unstructured lists of custom resources do (typed lists' items omit them). */
  readonly typedListItems?: boolean;
  /**
   * returnsDeletedObject: a DELETE that removes the object at once answers the object, not a
   * Status (the registry store's ReturnDeletedObject, set for Pods, Services, ServiceAccounts,
   * StorageClasses and the other kinds listed in kinds.ts), and OpenAPI says so.
   */
  readonly returnsDeletedObject?: boolean;
  /** deprecationWarning, when present, is sent as a `Warning:` header with every answer through this view (a deprecated CRD version). */
  readonly deprecationWarning?: string;
  /** storageVersionHash, when present, is listed for the resource in legacy discovery (a custom resource whose storage version is served). */
  readonly storageVersionHash?: string;
  /** discoveryVerbs, when present, are the verbs discovery lists, in its order (a custom resource's, fewer while its CRD terminates). */
  readonly discoveryVerbs?: readonly string[];
}

/** AnyView is a view over any object type, as the generic registry handles it. */
export type AnyView = ResourceView<KubeObject, KubeObject>;

/** apiVersionOf is the `apiVersion` a view's objects carry (`v1` for the core group). */
export function apiVersionOf(view: { readonly group: string; readonly version: string }): string {
  return view.group === '' ? view.version : `${view.group}/${view.version}`;
}
