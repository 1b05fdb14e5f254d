/**
 * The HTTP face of the generic registry: resolves `/api/v1/...` and `/apis/<group>/<version>/...`
 * URLs to a view, a namespace and a name, and serves get, list, watch, create, replace, patch,
 * delete and deletecollection with the real server's status codes and bodies.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '../cluster-auth.ts';
import { noteJournalPayload } from '../../../core/request-info.ts';
import { AdmissionOutcome } from '../admission/attributes.ts';
import { contentTypeOf, negotiateOutput, type OutputForm } from './content-negotiation.ts';
import { managerFromUserAgent } from './managed-fields.ts';
import type { KubeObject } from './object-meta.ts';
import { servePatch } from './patch-handler.ts';
import { defaultOrphanWarning, PROPAGATION_POLICIES, type PropagationPolicy } from './deletion-propagation.ts';
import { dryRunOf, parseBool, parseInteger, parseListQuery, parseWriteQuery, single, type Query } from './query-options.ts';
import type { DeleteRequest, ListResult, RequestScope } from './registry.ts';
import { decodeBody } from './request-body.ts';
import { sendSerialized } from './send-serialized.ts';
import { badRequest, deletedStatus, invalidObject, methodNotSupported, StatusError } from './status.ts';
import { notSupported, type FieldError } from './field-errors.ts';
import { FieldSelector } from './field-selector.ts';
import { apiVersionOf, type AnyView } from './strategy.ts';
import { parseIncludeObject, partialObject, toTable } from './table.ts';
import { startWatch } from './watch-stream.ts';
import type { HandlerContext, ViewIndex } from './handler-context.ts';

/** ResourceTarget is a URL resolved to a resource: the view, the namespace and the name (for item URLs). */
export interface ResourceTarget {
  readonly scope: RequestScope;
  readonly name: string | undefined;
}

/**
 * resolveTarget parses the part of a URL after `/api/v1` or `/apis/<g>/<v>`, for a request made
 * on behalf of `requester`; undefined when no resource answers it.
 */
export function resolveTarget(
  index: ViewIndex,
  group: string,
  version: string,
  segments: readonly string[],
  requester: UserInfo | undefined,
): ResourceTarget | undefined {
  const [first, second, third, fourth, fifth, ...rest] = segments;
  if (first === undefined || rest.length > 0) return undefined;
  const scope = (view: AnyView, namespace: string | undefined): RequestScope =>
    requester === undefined ? { view, group, namespace } : { view, group, namespace, requester };
  if (first === 'namespaces' && second !== undefined && third !== undefined) {
    // `namespaces/{ns}/{resource}[/{name}[/{subresource}]]`
    const view = index.find(group, version, third, fourth === undefined ? undefined : fifth);
    if (view === undefined || !view.strategy.namespaced) return undefined;
    return { scope: scope(view, second), name: fourth };
  }
  if (fifth !== undefined || fourth !== undefined) return undefined;
  if (third !== undefined) {
    // `{resource}/{name}/{subresource}` of a cluster-scoped resource.
    const view = index.find(group, version, first, third);
    if (view === undefined || view.strategy.namespaced) return undefined;
    return { scope: scope(view, undefined), name: second };
  }
  const view = index.find(group, version, first);
  if (view === undefined) return undefined;
  // A namespaced resource's item is only addressable inside its namespace.
  if (view.strategy.namespaced && second !== undefined) return undefined;
  return { scope: scope(view, undefined), name: second };
}

function fieldLabels(view: AnyView): ReadonlySet<string> {
  // The selectable field set is the same for every object: read it off an empty one.
  return new Set(Object.keys(view.selectableFields({ metadata: {} })));
}

function warningHeader(warnings: readonly string[]): string[] {
  return warnings.map((text) => `299 - ${JSON.stringify(text)}`);
}

function send(reply: FastifyReply, status: number, body: unknown, contentType: string, warnings: readonly string[] = []): FastifyReply {
  return sendText(reply, status, JSON.stringify(body), contentType, warnings);
}

function sendText(reply: FastifyReply, status: number, text: string, contentType: string, warnings: readonly string[] = []): FastifyReply {
  reply.code(status).header('cache-control', 'no-cache, private');
  if (warnings.length > 0) {
    // A deprecated version's warning was set first (serveResource); the request's own follow it.
    const earlier = reply.getHeader('warning');
    reply.header('warning', [...(Array.isArray(earlier) ? earlier : earlier === undefined ? [] : [String(earlier)]), ...warningHeader(warnings)]);
  }
  return sendSerialized(reply, contentType, text);
}

function fieldManagerOf(request: FastifyRequest, given: string | undefined): string {
  return given ?? managerFromUserAgent(request.headers['user-agent']);
}

/**
 * serveWatchPath answers the deprecated watch paths (`/api/v1/watch/…`, `/apis/{g}/{v}/watch/…`)
 * as the apiserver's WATCH and WATCHLIST routes do: a GET that is a watch whatever `watch` says
 * (the options are still validated as sent), and a named one a watch of that object through a
 * `metadata.name` field selector, which a selector given with it must agree with.
 */
async function serveWatchPath(context: HandlerContext, target: ResourceTarget, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const { scope, name } = target;
  if (request.method !== 'GET') throw methodNotSupported(context.registry.groupResource(scope), request.method.toLowerCase());
  const form = negotiateOutput(request.headers.accept);
  const listQuery = parseListQuery((request.query ?? {}) as Query, fieldLabels(scope.view));
  let { fieldSelector } = listQuery;
  if (name !== undefined) {
    if (fieldSelector.empty) fieldSelector = new FieldSelector([{ field: 'metadata.name', operator: '=', value: name }]);
    else if (fieldSelector.exactValue('metadata.name') !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  return startWatch(context, scope, { ...listQuery, watch: true, fieldSelector }, form, request, reply);
}

/** serveResource answers one request to a resolved resource URL; `watchPath` marks one reached through a deprecated `/watch/` path. */
export async function serveResource(
  context: HandlerContext,
  target: ResourceTarget,
  request: FastifyRequest,
  reply: FastifyReply,
  watchPath = false,
): Promise<unknown> {
  if (target.scope.view.deprecationWarning !== undefined) reply.header('warning', warningHeader([target.scope.view.deprecationWarning]));
  if (watchPath) return serveWatchPath(context, target, request, reply);
  const { registry } = context;
  const { name } = target;
  const scope =
    request.method === 'GET' || target.scope.requester === undefined ? target.scope : { ...target.scope, admission: admissionOutcomeOf(request, reply) };
  const { view } = scope;
  const query = (request.query ?? {}) as Query;
  const gr = registry.groupResource(scope);
  // A subresource answers get, update and patch of one object (as the apiserver's status endpoints).
  if (view.subresource !== undefined && (name === undefined || !['GET', 'PUT', 'PATCH'].includes(request.method))) {
    throw methodNotSupported(gr, request.method === 'DELETE' ? 'delete' : request.method === 'POST' ? 'create' : request.method.toLowerCase());
  }
  const now = registry.clock.now();
  const respond = (status: number, object: KubeObject, form: OutputForm, warnings: readonly string[] = []): FastifyReply => {
    if (form.kind === 'table') {
      const include = parseIncludeObject(single(query, 'includeObject'));
      return send(
        reply,
        status,
        toTable(
          view,
          [{ stored: view.toInternal(structuredClone(object)), object }],
          { resourceVersion: object.metadata.resourceVersion ?? '' },
          { now, version: form.version, include },
        ),
        contentTypeOf(form, false),
        warnings,
      );
    }
    if (form.kind === 'partial') return send(reply, status, partialObject(object, form.version), contentTypeOf(form, false), warnings);
    return send(reply, status, object, 'application/json', warnings);
  };
  const listBody = (result: ListResult, form: OutputForm): unknown => {
    const listMeta = {
      resourceVersion: result.resourceVersion,
      ...(result.continue === undefined ? {} : { continue: result.continue }),
      ...(result.remainingItemCount === undefined ? {} : { remainingItemCount: result.remainingItemCount }),
    };
    if (form.kind === 'table') {
      const include = parseIncludeObject(single(query, 'includeObject'));
      const entries = result.items.map((item) => {
        const object = { kind: view.kind, apiVersion: apiVersionOf({ group: scope.group, version: view.version }), ...item };
        return { stored: view.toInternal(structuredClone(object)), object };
      });
      return toTable(view, entries, listMeta, { now, version: form.version, include });
    }
    if (form.kind === 'partial') {
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${form.version}`,
        metadata: listMeta,
        items: result.items.map((item) => partialObject(item, form.version)),
      };
    }
    return { kind: view.listKind, apiVersion: apiVersionOf({ group: scope.group, version: view.version }), metadata: listMeta, items: result.items };
  };

  if (name === undefined) {
    switch (request.method) {
      case 'GET': {
        const form = negotiateOutput(request.headers.accept);
        const listQuery = parseListQuery(query, fieldLabels(view));
        if (listQuery.watch) return startWatch(context, scope, listQuery, form, request, reply);
        const result = await registry.list(scope, listQuery);
        return send(reply, 200, listBody(result, form), contentTypeOf(form, true));
      }
      case 'POST': {
        if (view.strategy.namespaced && scope.namespace === undefined) throw methodNotSupported(gr, 'create');
        const form = negotiateOutput(request.headers.accept);
        const options = parseWriteQuery(query, 'CreateOptions');
        const decoded = decodeBody(request.body, view, context.index.groups, options.fieldValidation);
        const created = await registry.create(scope, decoded.object, { dryRun: options.dryRun, fieldManager: fieldManagerOf(request, options.fieldManager) });
        return respond(201, created.object, form, [...decoded.warnings, ...created.warnings]);
      }
      case 'DELETE': {
        // Namespaces have no deletecollection (as discovery lists them): the apiserver's route table has no such method there.
        if (view.group === '' && view.resource === 'namespaces') throw methodNotAllowedRoute();
        const form = negotiateOutput(request.headers.accept);
        const listQuery = parseListQuery(query, fieldLabels(view));
        const deletion = deleteRequestOf(query, request.body);
        const result = await registry.deleteCollection(scope, listQuery, deletion);
        const warning = defaultOrphanWarning(view, deletion.propagation ?? {});
        return send(reply, 200, listBody(result, form), contentTypeOf(form, true), warning === undefined ? [] : [warning]);
      }
      default:
        throw methodNotSupported(gr, request.method.toLowerCase());
    }
  }

  switch (request.method) {
    case 'GET': {
      const form = negotiateOutput(request.headers.accept);
      const record = await registry.read(scope, name, single(query, 'resourceVersion'));
      if (form.kind === 'object') return sendText(reply, 200, registry.presentJson(scope, record), 'application/json');
      return respond(200, registry.present(scope, record), form);
    }
    case 'PUT': {
      const form = negotiateOutput(request.headers.accept);
      const options = parseWriteQuery(query, 'UpdateOptions');
      const decoded = decodeBody(request.body, view, context.index.groups, options.fieldValidation);
      checkUrlMatch(scope, name, decoded.object);
      const result = await registry.update(scope, name, () => decoded.object, {
        dryRun: options.dryRun,
        fieldManager: fieldManagerOf(request, options.fieldManager),
        allowCreate: true,
      });
      return respond(result.created ? 201 : 200, result.object, form, [...decoded.warnings, ...result.warnings]);
    }
    case 'PATCH': {
      const form = negotiateOutput(request.headers.accept);
      const patched = await servePatch(context, scope, name, request);
      return respond(patched.status, patched.object, form, patched.warnings);
    }
    case 'DELETE': {
      const form = negotiateOutput(request.headers.accept);
      const deletion = deleteRequestOf(query, request.body);
      const outcome = await registry.delete(scope, name, deletion);
      const warning = defaultOrphanWarning(view, deletion.propagation ?? {});
      const warnings = warning === undefined ? [] : [warning];
      // Kept by finalizers (or moved to Terminating), or gone from a store that returns what it deleted: the object;
      // 202 when kept and the deprecated orphanDependents=false asked for cascading (the delete handler's rule).
      if (outcome.kind === 'pending') return respond(deletion.propagation?.orphanDependents === false ? 202 : 200, outcome.object, form, warnings);
      if (view.returnsDeletedObject === true) return respond(200, outcome.object, form, warnings);
      return send(reply, 200, deletedStatus(gr, name, outcome.object.metadata.uid ?? ''), 'application/json', warnings);
    }
    default:
      throw methodNotSupported(gr, request.method.toLowerCase());
  }
}

/**
 * admissionOutcomeOf passes what admission says about a write on as it is said: warnings as
 * `Warning` headers (sent whether or not the write is admitted), audit annotations into the
 * request's journal entry (`jsonPayload.annotations`, the audit event's member).
 */
function admissionOutcomeOf(request: FastifyRequest, reply: FastifyReply): AdmissionOutcome {
  const annotations: Record<string, string> = {};
  return new AdmissionOutcome({
    warning: (text) => {
      const earlier = reply.getHeader('warning');
      reply.header('warning', [...(Array.isArray(earlier) ? earlier : earlier === undefined ? [] : [String(earlier)]), ...warningHeader([text])]);
    },
    annotate: (key, value) => {
      annotations[key] = value;
      noteJournalPayload(request, { annotations });
    },
  });
}

/** methodNotAllowedRoute is the apiserver's 405 for a method its route table lacks on a served path (go-restful's refusal as a Status). */
function methodNotAllowedRoute(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {
    causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }],
  });
}

/**
 * checkUrlMatch holds a PUT body to its URL before anything is read from the store, as the update
 * handler does (so a mismatch is 400 even when the URL names no object).
 */
function checkUrlMatch(scope: RequestScope, name: string, object: KubeObject): void {
  const namespace = object.metadata.namespace ?? '';
  if (scope.view.strategy.namespaced && scope.namespace !== undefined && namespace !== '' && namespace !== scope.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const bodyName = object.metadata.name ?? '';
  if (bodyName !== name) throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
}

/** deleteRequestOf reads DeleteOptions from the query and the optional body, with the real checks. */
export function deleteRequestOf(query: Query, body: unknown): DeleteRequest {
  // DeleteOptions decode from the query first (a gracePeriodSeconds strconv cannot read is a 400
  // before any check); the body's value wins, and only kinds with graceful deletion read it (Pods).
  const queryGrace = parseInteger(query, 'gracePeriodSeconds');
  const errors: FieldError[] = [];
  let dryRun = dryRunOf(query, errors);
  const options = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw badRequest(`json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type v1.DeleteOptions`);
  }
  if (Array.isArray(options['dryRun'])) {
    const values = options['dryRun'] as unknown[];
    if (values.some((value) => value !== 'All')) errors.push(notSupported('dryRun', values, ['All']));
    dryRun ||= values.length > 0;
  }
  const policy = (options['propagationPolicy'] as string | undefined) ?? single(query, 'propagationPolicy');
  if (policy !== undefined && !(PROPAGATION_POLICIES as readonly string[]).includes(policy))
    errors.push(notSupported('propagationPolicy', policy, PROPAGATION_POLICIES));
  const orphanOption = options['orphanDependents'];
  const orphan = typeof orphanOption === 'boolean' ? orphanOption : parseBool(query, 'orphanDependents');
  if (orphan !== undefined && policy !== undefined)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'propagationPolicy',
      value: policy,
      detail: 'orphanDependents and deletionPropagation cannot be both set',
    });
  if (errors.length > 0) throw invalidObject({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errors);
  const pre = options['preconditions'] as { uid?: string; resourceVersion?: string } | undefined;
  const bodyGrace = options['gracePeriodSeconds'];
  const grace = typeof bodyGrace === 'number' ? bodyGrace : queryGrace === undefined ? undefined : Number(queryGrace);
  return {
    ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
    dryRun,
    propagation: { ...(policy === undefined ? {} : { policy: policy as PropagationPolicy }), ...(orphan === undefined ? {} : { orphanDependents: orphan }) },
    preconditions:
      pre === undefined
        ? undefined
        : { ...(pre.uid === undefined ? {} : { uid: pre.uid }), ...(pre.resourceVersion === undefined ? {} : { resourceVersion: pre.resourceVersion }) },
  };
}
