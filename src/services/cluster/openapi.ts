/**
 * OpenAPI v3 documents (`/openapi/v3` and one per group-version), generated from the same
 * schemas that validate requests. kubectl needs them for `create`/`apply` under the default
 * `--validate=strict` (it looks for PATCH operations carrying the kind's
 * `x-kubernetes-group-version-kind` and a `fieldValidation` parameter) and for `explain`.
 * Documents are built on first request and cached with their content hash.
 */
import { createHash } from 'node:crypto';
import type { Spelling, Vocabulary } from '../../core/identifiers.ts';
import { toOpenApiSchemas, type SchemaSet } from './apimachinery/schema.ts';
import type { AnyView } from './apimachinery/strategy.ts';
import { SERVED_VERSION } from './version.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

const EXTRA_SCHEMAS: Record<string, unknown> = {
  [`${META}.Status`]: {
    description: "Status is a return value for calls that don't return other objects.",
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      code: { type: 'integer', format: 'int32', description: 'Suggested HTTP return code for this status, 0 if not set.' },
      details: { type: 'object', description: 'Extended data associated with the reason.' },
      kind: { type: 'string' },
      message: { type: 'string', description: 'A human-readable description of the status of this operation.' },
      metadata: { allOf: [{ $ref: `#/components/schemas/${META}.ListMeta` }], default: {} },
      reason: { type: 'string', description: 'A machine-readable description of why this operation is in the "Failure" status.' },
      status: { type: 'string', description: 'Status of the operation. One of: "Success" or "Failure".' },
    },
  },
  [`${META}.DeleteOptions`]: {
    description: 'DeleteOptions may be provided when deleting an API object.',
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      dryRun: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' },
      gracePeriodSeconds: { type: 'integer', format: 'int64' },
      kind: { type: 'string' },
      orphanDependents: { type: 'boolean' },
      preconditions: { type: 'object', properties: { resourceVersion: { type: 'string' }, uid: { type: 'string' } } },
      propagationPolicy: { type: 'string' },
    },
  },
  [`${META}.Patch`]: { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' },
  [`${META}.WatchEvent`]: {
    description: 'Event represents a single event to a watched resource.',
    type: 'object',
    required: ['type', 'object'],
    properties: {
      object: {
        type: 'object',
        description:
          'Object is: * If Type is Added or Modified: the new state of the object. * If Type is Deleted: the state of the object immediately before deletion. * If Type is Error: *Status is recommended; other types may make sense depending on context.',
      },
      type: { type: 'string', default: '' },
    },
  },
};

function queryParam(name: string, type: 'string' | 'boolean' | 'integer', description: string): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PRETTY = queryParam('pretty', 'string', "If 'true', then the output is pretty printed.");
const DRY_RUN = queryParam(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
);
const FIELD_MANAGER = queryParam('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = queryParam(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.',
);
const FORCE = queryParam(
  'force',
  'boolean',
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
);
const LIST_PARAMS = [
  queryParam('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  queryParam('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  queryParam('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  queryParam('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  queryParam('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  queryParam('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  queryParam('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  queryParam('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`.'),
  queryParam('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  queryParam('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];
const DELETE_PARAMS = [
  DRY_RUN,
  queryParam('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  queryParam(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.",
  ),
];

function pathParam(name: string, description: string): Record<string, unknown> {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

function ref(name: string): Record<string, unknown> {
  return { $ref: `#/components/schemas/${name}` };
}

function jsonContent(schemaName: string): Record<string, unknown> {
  return { 'application/json': { schema: ref(schemaName) }, 'application/yaml': { schema: ref(schemaName) } };
}

/** CreateOnlyResource is a virtual resource served for `create` alone (a review), with the schemas of its group-version. */
export interface CreateOnlyResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly schemaName: string;
  readonly schemas: SchemaSet;
  /** Namespaced reviews (LocalSubjectAccessReview) are posted under `/namespaces/{namespace}/`. */
  readonly namespaced?: boolean;
}

/** OpenApiDocuments builds and caches the v3 documents of every group-version served. */
export class OpenApiDocuments {
  #cache = new Map<string, { readonly json: string; readonly hash: string }>();

  constructor(
    readonly views: readonly AnyView[],
    readonly groups: Vocabulary,
    readonly spelling: Spelling,
    readonly createOnly: readonly CreateOnlyResource[] = [],
  ) {}

  /** paths lists the documents' relative paths (`api/v1`, `apis/<group>/<version>`). */
  paths(): string[] {
    return [...new Set([...this.views, ...this.createOnly].map((entry) => this.#pathOf(entry.group, entry.version)))];
  }

  #pathOf(group: string, version: string): string {
    return group === '' ? `api/${version}` : `apis/${this.groups.spell(group, this.spelling)}/${version}`;
  }

  /** index is the `/openapi/v3` document. */
  index(): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    for (const path of this.paths()) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${this.document(path)!.hash}` };
    return { paths };
  }

  /** document returns one group-version document (JSON text and hash); undefined when none is served at `path`. */
  document(path: string): { readonly json: string; readonly hash: string } | undefined {
    const cached = this.#cache.get(path);
    if (cached !== undefined) return cached;
    let group: string;
    let version: string;
    const core = /^api\/([^/]+)$/.exec(path);
    const named = /^apis\/([^/]+)\/([^/]+)$/.exec(path);
    if (core !== null) {
      group = '';
      version = core[1]!;
    } else if (named !== null) {
      group = this.groups.canonical(named[1]!);
      version = named[2]!;
    } else {
      return undefined;
    }
    const matching = this.views.filter((view) => view.group === group && view.version === version);
    const createOnly = this.createOnly.filter((entry) => entry.group === group && entry.version === version);
    if (matching.length === 0 && createOnly.length === 0) return undefined;
    const json = JSON.stringify(this.#build(matching, createOnly));
    const entry = { json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() };
    this.#cache.set(path, entry);
    return entry;
  }

  #build(views: readonly AnyView[], createOnly: readonly CreateOnlyResource[]): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    const gvks: Record<string, { group: string; version: string; kind: string }> = {};
    let schemas = {};
    // Components published as a view gives them (a CRD's own schema), over the rendered ones.
    let published: Record<string, unknown> = {};
    for (const view of views) {
      if (view.openApiSchemas !== undefined) published = { ...published, ...view.openApiSchemas };
      const group = view.group === '' ? '' : this.groups.spell(view.group, this.spelling);
      const gvk = { group, kind: view.kind, version: view.version };
      gvks[view.schemaName] = gvk;
      gvks[view.listSchemaName] = { group, kind: view.listKind, version: view.version };
      schemas = { ...schemas, ...view.schemas };
      const base = group === '' ? `/api/${view.version}` : `/apis/${group}/${view.version}`;
      const tag = `${group === '' ? 'core' : group.split('.')[0]}_${view.version}`;
      const collection = view.strategy.namespaced ? `${base}/namespaces/{namespace}/${view.resource}` : `${base}/${view.resource}`;
      const scopeParams = view.strategy.namespaced ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')] : [];
      const ext = (action: string) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk });
      const kindName = view.kind;
      const op = (verb: string, extra: Record<string, unknown>, action: string, responses: Record<string, unknown>, operationId = `${verb}${kindName}`) => ({
        tags: [tag],
        description: extra['description'],
        operationId,
        ...(extra['parameters'] === undefined ? {} : { parameters: extra['parameters'] }),
        ...(extra['requestBody'] === undefined ? {} : { requestBody: extra['requestBody'] }),
        responses,
        ...ext(action),
      });
      const ok = (name: string) => ({ description: 'OK', content: jsonContent(name) });
      const deleted = view.returnsDeletedObject === true ? view.schemaName : `${META}.Status`;
      paths[collection] = {
        get: op('list', { description: `list or watch objects of kind ${kindName}`, parameters: LIST_PARAMS }, 'list', {
          '200': ok(view.listSchemaName),
          '401': { description: 'Unauthorized' },
        }),
        post: op(
          'create',
          {
            description: `create a ${kindName}`,
            parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
            requestBody: { content: { '*/*': { schema: ref(view.schemaName) } }, required: true },
          },
          'post',
          {
            '200': ok(view.schemaName),
            '201': { description: 'Created', content: jsonContent(view.schemaName) },
            '202': { description: 'Accepted', content: jsonContent(view.schemaName) },
            '401': { description: 'Unauthorized' },
          },
        ),
        ...(view.resource === 'namespaces'
          ? {}
          : {
              delete: op(
                'deletecollection',
                {
                  description: `delete collection of ${kindName}`,
                  parameters: [...LIST_PARAMS.filter((p) => p['name'] !== 'watch' && p['name'] !== 'allowWatchBookmarks'), ...DELETE_PARAMS],
                  requestBody: { content: { '*/*': { schema: ref(`${META}.DeleteOptions`) } } },
                },
                'deletecollection',
                { '200': ok(`${META}.Status`), '401': { description: 'Unauthorized' } },
              ),
            }),
        parameters: [...scopeParams, PRETTY],
      };
      paths[`${collection}/{name}`] = {
        get: op('read', { description: `read the specified ${kindName}` }, 'get', { '200': ok(view.schemaName), '401': { description: 'Unauthorized' } }),
        put: op(
          'replace',
          {
            description: `replace the specified ${kindName}`,
            parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
            requestBody: { content: { '*/*': { schema: ref(view.schemaName) } }, required: true },
          },
          'put',
          {
            '200': ok(view.schemaName),
            '201': { description: 'Created', content: jsonContent(view.schemaName) },
            '401': { description: 'Unauthorized' },
          },
        ),
        delete: op(
          'delete',
          { description: `delete a ${kindName}`, parameters: DELETE_PARAMS, requestBody: { content: { '*/*': { schema: ref(`${META}.DeleteOptions`) } } } },
          'delete',
          {
            // The installer documents what the storage answers: the kind where it returns the deleted object.
            '200': ok(deleted),
            '202': { description: 'Accepted', content: jsonContent(deleted) },
            '401': { description: 'Unauthorized' },
          },
        ),
        patch: op(
          'patch',
          {
            description: `partially update the specified ${kindName}`,
            parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
            requestBody: { content: { 'application/merge-patch+json': { schema: ref(`${META}.Patch`) } }, required: true },
          },
          'patch',
          {
            '200': ok(view.schemaName),
            '201': { description: 'Created', content: jsonContent(view.schemaName) },
            '401': { description: 'Unauthorized' },
          },
        ),
        parameters: [pathParam('name', `name of the ${kindName}`), ...scopeParams, PRETTY],
      };
      if (view.strategy.namespaced) {
        paths[`${base}/${view.resource}`] = {
          get: op('list', { description: `list or watch objects of kind ${kindName}`, parameters: LIST_PARAMS }, 'list', {
            '200': ok(view.listSchemaName),
            '401': { description: 'Unauthorized' },
          }),
          parameters: [PRETTY],
        };
      }
      // The deprecated watch paths, served and documented as the apiserver still does (1.32).
      const watched = {
        description: 'OK',
        content: { 'application/json': { schema: ref(`${META}.WatchEvent`) }, 'application/json;stream=watch': { schema: ref(`${META}.WatchEvent`) } },
      };
      const watchCollection = view.strategy.namespaced ? `${base}/watch/namespaces/{namespace}/${view.resource}` : `${base}/watch/${view.resource}`;
      const watchListDescription = `watch individual changes to a list of ${kindName}. deprecated: use the 'watch' parameter with a list operation instead.`;
      paths[watchCollection] = {
        get: op(
          'watch',
          { description: watchListDescription },
          'watchlist',
          { '200': watched, '401': { description: 'Unauthorized' } },
          `watch${kindName}List`,
        ),
        parameters: [...LIST_PARAMS, ...scopeParams, PRETTY],
      };
      paths[`${watchCollection}/{name}`] = {
        get: op(
          'watch',
          {
            description: `watch changes to an object of kind ${kindName}. deprecated: use the 'watch' parameter with a list operation, filtered to a single item with the 'fieldSelector' parameter.`,
          },
          'watch',
          { '200': watched, '401': { description: 'Unauthorized' } },
        ),
        parameters: [...LIST_PARAMS, pathParam('name', `name of the ${kindName}`), ...scopeParams, PRETTY],
      };
      if (view.strategy.namespaced) {
        paths[`${base}/watch/${view.resource}`] = {
          get: op(
            'watch',
            { description: watchListDescription },
            'watchlist',
            { '200': watched, '401': { description: 'Unauthorized' } },
            `watch${kindName}ListForAllNamespaces`,
          ),
          parameters: [...LIST_PARAMS, PRETTY],
        };
      }
    }
    for (const entry of createOnly) {
      const group = this.groups.spell(entry.group, this.spelling);
      const gvk = { group, kind: entry.kind, version: entry.version };
      gvks[entry.schemaName] = gvk;
      schemas = { ...schemas, ...entry.schemas };
      const ok = { description: 'OK', content: jsonContent(entry.schemaName) };
      const scope = entry.namespaced === true ? 'namespaces/{namespace}/' : '';
      paths[`/apis/${group}/${entry.version}/${scope}${entry.resource}`] = {
        post: {
          tags: [`${group.split('.')[0]}_${entry.version}`],
          description: `create a ${entry.kind}`,
          operationId: `create${entry.kind}`,
          parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
          requestBody: { content: { '*/*': { schema: ref(entry.schemaName) } }, required: true },
          responses: {
            '200': ok,
            '201': { description: 'Created', content: jsonContent(entry.schemaName) },
            '202': { description: 'Accepted', content: jsonContent(entry.schemaName) },
            '401': { description: 'Unauthorized' },
          },
          'x-kubernetes-action': 'post',
          'x-kubernetes-group-version-kind': gvk,
        },
        parameters: entry.namespaced === true ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects'), PRETTY] : [PRETTY],
      };
    }
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: SERVED_VERSION.gitVersion },
      paths,
      components: { schemas: { ...toOpenApiSchemas(schemas, { gvks }), ...published, ...EXTRA_SCHEMAS } },
    };
  }
}
