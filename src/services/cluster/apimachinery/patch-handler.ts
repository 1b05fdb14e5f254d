/**
 * PATCH for every resource, in the four content types the real server accepts: JSON patch
 * (RFC 6902, `json-patch.ts`), JSON merge patch (RFC 7386), strategic merge patch
 * (schema-driven) and apply (server-side apply). Each non-apply type computes the new object from
 * the current one inside the registry's update transaction; apply merges with ownership and may
 * create the object (201).
 */
import type { FastifyRequest } from 'fastify';
import { ACCEPTED_PATCH_TYPES } from './error-serializer.ts';
import { SchemaWalker } from './field-set.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import { managerFromUserAgent } from './managed-fields.ts';
import type { KubeObject, ManagedFieldsEntry } from './object-meta.ts';
import type { Vocabulary } from '../../../core/identifiers.ts';
import { ownValue } from '../../../core/own.ts';
import { parseWriteQuery, type FieldValidation, type Query, type WriteQuery } from './query-options.ts';
import { formatTime, type GenericRegistry, type RequestScope } from './registry.ts';
import { decodeBody } from './request-body.ts';
import type { HandlerContext } from './handler-context.ts';
import { serverSideApply } from './server-side-apply.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';
import { badRequest, StatusError, unsupportedMediaType } from './status.ts';
import { apiVersionOf, type AnyView } from './strategy.ts';

/** PatchOutcome is the answer to a PATCH: 200 for a patch, 201 when apply created the object. */
export interface PatchOutcome {
  readonly status: 200 | 201;
  readonly object: KubeObject;
  readonly warnings: string[];
}

const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** The apiserver's bound on the operations of one JSON patch (`maxJSONPatchOperations`). */
const MAX_JSON_PATCH_OPERATIONS = 10000;

const walkers = new WeakMap<AnyView, SchemaWalker>();

/** walkerOf is the (cached) schema walker of a view's schema set. */
export function walkerOf(view: AnyView): SchemaWalker {
  let walker = walkers.get(view);
  if (walker === undefined) {
    walker = new SchemaWalker(view.schemas);
    walkers.set(view, walker);
  }
  return walker;
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * decodeJsonPatch checks a JSON patch body as the apiserver decodes it: unless fieldValidation is
 * Ignore, first strictly into its own `[]jsonPatchOp` (op, path and from are strings), then into
 * evanphx/json-patch's `Patch`; a JSON `null` is a patch of no operations.
 */
function decodeJsonPatch(patch: unknown, validation: FieldValidation): unknown[] {
  const strict = validation !== 'Ignore';
  if (patch === undefined) throw badRequest(`${strict ? 'error decoding patch: ' : ''}unexpected end of JSON input`);
  if (patch === null) return [];
  if (!Array.isArray(patch)) {
    throw badRequest(
      strict
        ? `error decoding patch: json: cannot unmarshal ${goType(patch)} into Go value of type []handlers.jsonPatchOp`
        : `json: cannot unmarshal ${goType(patch)} into Go value of type jsonpatch.Patch`,
    );
  }
  for (const operation of patch) {
    if (operation === null) continue;
    if (typeof operation !== 'object' || Array.isArray(operation)) {
      throw badRequest(
        strict
          ? `error decoding patch: json: cannot unmarshal ${goType(operation)} into Go value of type handlers.jsonPatchOp`
          : `json: cannot unmarshal ${goType(operation)} into Go value of type jsonpatch.Operation`,
      );
    }
    if (!strict) continue;
    for (const field of ['op', 'path', 'from']) {
      const value = ownValue(operation as Record<string, unknown>, field);
      if (value !== undefined && value !== null && typeof value !== 'string')
        throw badRequest(`error decoding patch: json: cannot unmarshal ${goType(value)} into Go struct field jsonPatchOp.${field} of type string`);
    }
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  return patch;
}

/** servePatch applies one PATCH request to the object `name`. */
export async function servePatch(context: HandlerContext, scope: RequestScope, name: string, request: FastifyRequest): Promise<PatchOutcome> {
  const { registry } = context;
  const { view } = scope;
  const query = (request.query ?? {}) as Query;
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const accepted = view.patchTypes ?? ACCEPTED_PATCH_TYPES;
  if (!accepted.includes(contentType)) throw unsupportedMediaType(accepted);
  const options = parseWriteQuery(query, 'PatchOptions', contentType === APPLY_PATCH ? 'apply' : true);
  const fieldManager = options.fieldManager ?? managerFromUserAgent(request.headers['user-agent']);
  const patch: unknown = request.body;
  if (contentType === APPLY_PATCH) return applyObject({ registry, groups: context.index.groups }, scope, name, patch, { ...options, fieldManager });

  let operations: unknown[] | undefined;
  if (contentType === JSON_PATCH) {
    operations = decodeJsonPatch(patch, options.fieldValidation);
  } else if (patch === undefined || patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${goType(patch)} into Go value of type map[string]interface {}`);
  }
  let warnings: string[] = [];
  const result = await registry.update(
    scope,
    name,
    (current) => {
      let patched: unknown;
      if (operations !== undefined) patched = applyJsonPatch(current, operations);
      else if (contentType === STRATEGIC_PATCH) patched = applyStrategicMergePatch(current, patch as Record<string, unknown>, view.schemaName, view.schemas);
      else patched = applyMergePatch(current, patch);
      const decoded = decodeBody(patched, view, context.index.groups, options.fieldValidation);
      warnings = decoded.warnings;
      return decoded.object;
    },
    { dryRun: options.dryRun, fieldManager, allowCreate: false },
  );
  return { status: 200, object: result.object, warnings: [...warnings, ...result.warnings] };
}

/** ApplyOptions are the options of one server-side apply. */
export type ApplyOptions = WriteQuery & { readonly fieldManager: string; readonly force: boolean };

/** applyObject server-side applies a configuration to the object `name` (creating it when missing); controllers use it too. */
export async function applyObject(
  context: { readonly registry: GenericRegistry; readonly groups: Vocabulary },
  scope: RequestScope,
  name: string,
  patch: unknown,
  options: ApplyOptions,
): Promise<PatchOutcome> {
  const { registry } = context;
  const { view } = scope;
  if (patch === undefined || patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw badRequest(`error decoding YAML: json: cannot unmarshal ${goType(patch)} into Go value of type map[string]interface {}`);
  }
  const body = patch as Record<string, unknown>;
  const metadata = body['metadata'];
  if (metadata !== null && typeof metadata === 'object' && (metadata as Record<string, unknown>)['managedFields'] !== undefined) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const decoded = decodeBody(body, view, context.groups, options.fieldValidation);
  const applied: Record<string, unknown> = decoded.object;
  const walker = walkerOf(view);
  const time = formatTime(registry.clock.now());
  const apiVersion = apiVersionOf(view);
  const run = (live: KubeObject | undefined) =>
    serverSideApply({
      live,
      applied,
      typeMeta: { apiVersion: body['apiVersion'], kind: body['kind'] },
      manager: options.fieldManager,
      force: options.force,
      apiVersion,
      time,
      root: view.schemaName,
      walker,
    });
  for (let attempt = 0; ; attempt++) {
    let managedFields: ManagedFieldsEntry[] = [];
    const writeOptions = { dryRun: options.dryRun, fieldManager: options.fieldManager, managedFields: () => managedFields };
    try {
      if ((await registry.store.get(view.storeKind, registry.keyOf(scope, scope.namespace, name))) === undefined) {
        const appliedName = (applied['metadata'] as { name?: string } | undefined)?.name ?? '';
        if (appliedName !== '' && appliedName !== name)
          throw badRequest(`the name of the object (${appliedName}) does not match the name on the URL (${name})`);
        const outcome = run(undefined);
        managedFields = outcome.managedFields;
        const object = { ...outcome.object, metadata: { ...outcome.object.metadata, name } };
        const created = await registry.create(scope, object, writeOptions);
        return { status: 201, object: created.object, warnings: [...decoded.warnings, ...created.warnings] };
      }
      const result = await registry.update(
        scope,
        name,
        (current) => {
          const outcome = run(current);
          managedFields = outcome.managedFields;
          return decodeBody(outcome.object, view, context.groups, 'Ignore').object;
        },
        { ...writeOptions, allowCreate: false },
      );
      return { status: 200, object: result.object, warnings: [...decoded.warnings, ...result.warnings] };
    } catch (error) {
      // The object appeared or went between the check and the write: go round once more.
      const raced = error instanceof StatusError && (error.reason === 'AlreadyExists' || error.reason === 'NotFound');
      if (!raced || attempt > 0) throw error;
    }
  }
}
