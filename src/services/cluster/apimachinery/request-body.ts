/**
 * Decoding a request body into a view's object the way the real server's JSON decoder does:
 * type/version checks, Go-worded type errors, and unknown fields handled per `fieldValidation`
 * (Strict: 400; Warn: a warning each; Ignore: silently dropped).
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { KubeObject } from './object-meta.ts';
import type { FieldValidation } from './query-options.ts';
import { decodeWithSchema, type SchemaSet } from './schema.ts';
import { invalid } from './field-errors.ts';
import { badRequest, invalidObject, type StatusError } from './status.ts';
import { apiVersionOf, type AnyView } from './strategy.ts';

/** DecodedBody is an object ready for the registry, plus the warnings decoding produced. */
export interface DecodedBody {
  readonly object: KubeObject;
  readonly warnings: string[];
}

const TYPE_META_GO = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * checkTypeMeta is the apiserver's first look at any JSON body (the serializer reading its
 * TypeMeta): it must be an object whose `apiVersion` and `kind`, when present, are strings. It
 * runs before anything reads those values as text, so no body value is ever turned into a string
 * unchecked.
 */
export function checkTypeMeta(body: unknown): asserts body is Record<string, unknown> & { apiVersion?: string | null; kind?: string | null } {
  if (body === undefined) throw badRequest("couldn't get version/kind; json parse error: unexpected end of JSON input");
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(body)} into Go value of type ${TYPE_META_GO}`);
  }
  for (const field of ['apiVersion', 'kind'] as const) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw badRequest(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(value)} into Go struct field .${field} of type string`,
      );
    }
  }
}

/** BodyKind is what a body is decoded as: its kind, version, expected `apiVersion` and schema. */
export interface BodyKind {
  readonly kind: string;
  readonly version: string;
  /** The `apiVersion` the body must carry when it names one (`apps/v1`, `v1`). */
  readonly apiVersion: string;
  readonly schemaName: string;
  readonly schemas: SchemaSet;
}

/**
 * decodeKindBody checks and decodes `body` as one kind, as the apiserver's JSON decoder does:
 * TypeMeta, the apiVersion (either spelling of its group) and kind, Go-worded type errors, and
 * unknown fields per `validation`. The value keeps its apiVersion and kind.
 */
export function decodeKindBody(body: unknown, target: BodyKind, groups: Vocabulary, validation: FieldValidation): { value: unknown; warnings: string[] } {
  checkTypeMeta(body);
  const record = body as Record<string, unknown>;
  const expected = target.apiVersion;
  const given = typeof record['apiVersion'] === 'string' && record['apiVersion'] !== '' ? record['apiVersion'] : undefined;
  if (given !== undefined && canonicalApiVersion(given, groups) !== expected) {
    throw badRequest(`the API version in the data (${given}) does not match the expected API version (${expected})`);
  }
  const kind = typeof record['kind'] === 'string' && record['kind'] !== '' ? record['kind'] : undefined;
  const cannotHandle = `${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}`;
  if (kind !== undefined && kind !== target.kind) {
    throw badRequest(
      `${kind} in version "${target.version}" cannot be handled as a ${target.kind}: no kind "${kind}" is registered for version "${expected}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
    );
  }
  const decoded = decodeWithSchema(record, target.schemaName, target.schemas);
  if (decoded.typeError !== undefined) throw badRequest(`${cannotHandle}: ${decoded.typeError}`);
  const unknown = decoded.unknownFields.map((field) => `unknown field ${JSON.stringify(field)}`);
  if (unknown.length > 0 && validation === 'Strict') throw badRequest(`${cannotHandle}: strict decoding error: ${unknown.join(', ')}`);
  return { value: decoded.value, warnings: validation === 'Warn' ? unknown : [] };
}

/** decodeBody checks and decodes `body` for `view`; `groups` reads either spelling of a group name. */
export function decodeBody(body: unknown, view: AnyView, groups: Vocabulary, validation: FieldValidation): DecodedBody {
  const target = {
    kind: view.kind,
    version: view.version,
    apiVersion: apiVersionOf(view.responseKind ?? view),
    schemaName: view.schemaName,
    schemas: view.schemas,
  };
  const { value, warnings } =
    view.decode === undefined ? decodeKindBody(body, target, groups, validation) : decodeCustomBody(body, view, target, groups, validation);
  const object = value as KubeObject;
  object.metadata ??= {};
  delete object.apiVersion;
  delete object.kind;
  return { object, warnings };
}

/** decodeCustomBody decodes a body through the view's own decoder (custom resources), with the same TypeMeta checks and unknown-field texts. */
function decodeCustomBody(
  body: unknown,
  view: AnyView,
  target: BodyKind,
  groups: Vocabulary,
  validation: FieldValidation,
): { value: unknown; warnings: string[] } {
  checkTypeMeta(body);
  const record = body as Record<string, unknown>;
  const given = typeof record['apiVersion'] === 'string' && record['apiVersion'] !== '' ? record['apiVersion'] : undefined;
  if (given !== undefined && canonicalApiVersion(given, groups) !== target.apiVersion) {
    throw badRequest(`the API version in the data (${given}) does not match the expected API version (${target.apiVersion})`);
  }
  const kind = typeof record['kind'] === 'string' && record['kind'] !== '' ? record['kind'] : undefined;
  const cannotHandle = `${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}`;
  if (kind !== undefined && kind !== target.kind) throw otherKind(record, view, kind);
  const decoded = view.decode!(record);
  if (decoded.typeError !== undefined) throw badRequest(`${cannotHandle}: ${decoded.typeError}`);
  const unknown = decoded.unknownFields.map((field) => `unknown field ${JSON.stringify(field)}`);
  if (unknown.length > 0 && validation === 'Strict') throw badRequest(`${cannotHandle}: strict decoding error: ${unknown.join(', ')}`);
  return { value: decoded.value, warnings: validation === 'Warn' ? unknown : [] };
}

/**
 * otherKind is the answer to a custom resource body of another kind: the unstructured decoder
 * reads any kind, and the custom resource strategy's TypeMeta validation refuses it with a 422
 * naming the body's kind (`kind: Invalid value: "X": must be Widget`).
 */
function otherKind(record: Record<string, unknown>, view: AnyView, kind: string): StatusError {
  const metadata = record['metadata'];
  const name =
    typeof metadata === 'object' && metadata !== null && typeof (metadata as { name?: unknown }).name === 'string' ? (metadata as { name: string }).name : '';
  return invalidObject({ group: view.group, kind }, name, [invalid('kind', kind, `must be ${view.kind}`)]);
}

/** canonicalApiVersion maps `group/version` in either spelling of the group to the real one. */
export function canonicalApiVersion(apiVersion: string, groups: Vocabulary): string {
  const slash = apiVersion.lastIndexOf('/');
  if (slash === -1) return apiVersion;
  return `${groups.canonical(apiVersion.slice(0, slash))}/${apiVersion.slice(slash + 1)}`;
}
