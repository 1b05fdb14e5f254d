/**
 * ObjectMeta: the metadata every cluster object carries, the server-set system fields, and the
 * generic metadata validation the real server runs after each resource's own (apimachinery
 * `api/validation/objectmeta.go`).
 */
import { forbidden, immutable, invalid, required, tooLong, type FieldError } from './field-errors.ts';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isPathSegmentName, isPathSegmentPrefix, isQualifiedName } from './name-rules.ts';

/** ManagedFieldsEntry records which manager last wrote an object and how. */
export interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: 'Update' | 'Apply';
  readonly apiVersion: string;
  readonly time: string;
  readonly fieldsType: 'FieldsV1';
  readonly fieldsV1: Record<string, unknown>;
  readonly subresource?: string;
}

/** ObjectMeta is `metadata` of a cluster object. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: ManagedFieldsEntry[];
}

/** KubeObject is any cluster object: type fields, metadata, and its own fields. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** NameRule says which syntax an object's name must follow. */
export type NameRule = 'path-segment' | 'dns-subdomain' | 'dns-label';

/** TOTAL_ANNOTATION_SIZE_LIMIT is the byte limit on all annotations of one object (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function nameProblems(rule: NameRule, value: string, prefix: boolean): string[] {
  switch (rule) {
    case 'path-segment':
      return prefix ? isPathSegmentPrefix(value) : isPathSegmentName(value);
    case 'dns-subdomain':
      // A generateName prefix may end in '-': check it as if a character followed.
      return isDns1123Subdomain(prefix ? maskTrailingDash(value) : value);
    case 'dns-label':
      return isDns1123Label(prefix ? maskTrailingDash(value) : value);
  }
}

function maskTrailingDash(value: string): string {
  return value.endsWith('-') ? `${value.slice(0, -1)}a` : value;
}

/** validateObjectMeta checks metadata on create: name (or generateName), namespace presence, labels, annotations. */
export function validateObjectMeta(meta: ObjectMeta, options: { readonly namespaced: boolean; readonly nameRule: NameRule }): FieldError[] {
  const errors: FieldError[] = [];
  if (meta.generateName !== undefined && meta.generateName !== '') {
    for (const problem of nameProblems(options.nameRule, meta.generateName, true)) errors.push(invalid('metadata.generateName', meta.generateName, problem));
  }
  if (meta.name === undefined || meta.name === '') {
    errors.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const problem of nameProblems(options.nameRule, meta.name, false)) errors.push(invalid('metadata.name', meta.name, problem));
  }
  if (options.namespaced) {
    if (meta.namespace === undefined || meta.namespace === '') errors.push(required('metadata.namespace'));
    else for (const problem of isDns1123Label(meta.namespace)) errors.push(invalid('metadata.namespace', meta.namespace, problem));
  } else if (meta.namespace !== undefined && meta.namespace !== '') {
    errors.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  errors.push(...validateLabels(meta.labels, 'metadata.labels'));
  errors.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  for (const [index, finalizer] of (meta.finalizers ?? []).entries()) {
    for (const problem of isQualifiedName(finalizer)) errors.push(invalid(`metadata.finalizers[${index}]`, finalizer, problem));
  }
  return errors;
}

/** validateLabels checks label keys (qualified names) and values. */
export function validateLabels(labels: Record<string, string> | undefined, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const problem of isQualifiedName(key)) errors.push(invalid(field, key, problem));
    for (const problem of isLabelValue(value)) errors.push(invalid(field, value, problem));
  }
  return errors;
}

/** validateAnnotations checks annotation keys (qualified names, case-insensitively) and their total size. */
export function validateAnnotations(annotations: Record<string, string> | undefined, field: string): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const problem of isQualifiedName(key.toLowerCase())) errors.push(invalid(field, key, problem));
    total += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errors.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errors;
}

/** validateObjectMetaUpdate checks metadata on update: the create rules plus the fields that never change. */
export function validateObjectMetaUpdate(
  next: ObjectMeta,
  old: ObjectMeta,
  options: { readonly namespaced: boolean; readonly nameRule: NameRule },
): FieldError[] {
  // generateName only matters when the name is generated, on create.
  const { generateName: _unused, ...rest } = next;
  const errors = validateObjectMeta(rest, options);
  if (next.name !== old.name) errors.push(immutable('metadata.name', next.name ?? ''));
  if ((next.namespace ?? '') !== (old.namespace ?? '')) errors.push(immutable('metadata.namespace', next.namespace ?? ''));
  if (next.uid !== old.uid) errors.push(immutable('metadata.uid', next.uid ?? ''));
  return errors;
}
