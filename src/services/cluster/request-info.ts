/**
 * The cluster's reading of one request, as the apiserver's `RequestInfoFactory.NewRequestInfo`
 * makes it in WithRequestInfo, made once per request and kept in the request's RequestInfo
 * (core/request-info.ts): who the request comes from (authentication sets it, impersonation
 * replaces it), the group, version and path below the version that the handler resolves to a
 * resource, and the authorization attributes (verb, group, resource, subresource, namespace,
 * name) that RBAC decides, fault rules match (`get clusterroles`) and the request journal names.
 * Every reader of these facts reads them here.
 */
import type { FastifyRequest } from 'fastify';
import type { Vocabulary } from '../../core/identifiers.ts';
import { requestInfoOf } from '../../core/request-info.ts';
import { queryFlag } from './apimachinery/query-values.ts';
import type { UserInfo } from './cluster-auth.ts';
import type { Attributes } from './rbac/policy-rules.ts';

/** NAMESPACE_SUBRESOURCES are the subresources of a namespace itself, not resources inside it. */
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);

/** ClusterRequestInfo is what the cluster reads from one request's method and URL, and who sent it. */
export class ClusterRequestInfo {
  /** The user the request acts as: the authenticated one (cluster-auth.ts), then the impersonated one (rbac/authorize-requests.ts); undefined on a public path without credentials. */
  user: UserInfo | undefined = undefined;
  readonly method: string;
  /** The path without the query, as sent (percent-encoding kept). */
  readonly path: string;
  /** The query, without its `?` ('' when none). */
  readonly query: string;
  /** The path's segments, decoded once (as Go's URL.Path) and without empty ones. */
  readonly segments: readonly string[];
  /** The API group as spelled under `/apis/{group}`; '' under `/api` and elsewhere. */
  readonly group: string;
  /** The API version of a path under `/api/{version}` or `/apis/{group}/{version}`, if it names one. */
  readonly version: string | undefined;
  /** Whether the path is a deprecated watch path (`…/{version}/watch/{resource}…`): a watch whatever the method. */
  readonly watchPath: boolean;
  /** The segments after the version (the deprecated `watch` taken off): what names the resource, its namespace and name. */
  readonly target: readonly string[];
  #attributes: Attributes | undefined;

  constructor(method: string, url: string) {
    this.method = method;
    const mark = url.indexOf('?');
    const rawPath = mark === -1 ? url : url.slice(0, mark);
    this.path = rawPath === '' ? '/' : rawPath;
    this.query = mark === -1 ? '' : url.slice(mark + 1);
    this.segments = segmentsOf(this.path);
    const [first, second, third] = this.segments;
    let rest: readonly string[] = [];
    if (first === 'api') {
      this.group = '';
      this.version = second;
      rest = this.segments.slice(2);
    } else if (first === 'apis') {
      this.group = second ?? '';
      this.version = third;
      rest = this.segments.slice(3);
    } else {
      this.group = '';
      this.version = undefined;
    }
    // No resource is called `watch`, so the segment is unambiguous.
    this.watchPath = rest.length >= 2 && rest[0] === 'watch';
    this.target = this.watchPath ? rest.slice(1) : rest;
  }

  /** resourceRequest tells a request for a resource (`/api/v1/{…}`, `/apis/{g}/{v}/{…}`) from a non-resource one (`/version`, discovery). */
  get resourceRequest(): boolean {
    return this.version !== undefined && this.target.length > 0;
  }

  /** attributes are the request's authorization attributes, read once; `groups` reads the group in either spelling. */
  attributes(groups: Vocabulary): Attributes {
    this.#attributes ??= attributesOfInfo(this, groups);
    return this.#attributes;
  }

  /** methodId names the request for fault rules and the journal: `get clusterroles`, `update namespaces/finalize`; a non-resource request by verb and path (`get /version`). */
  methodId(groups: Vocabulary): string {
    const attributes = this.attributes(groups);
    if (!attributes.resourceRequest) return `${attributes.verb === 'head' ? 'get' : attributes.verb} ${attributes.path}`;
    return `${attributes.verb} ${attributes.resource}${attributes.subresource === '' ? '' : `/${attributes.subresource}`}`;
  }
}

/** clusterRequestOf is the request's ClusterRequestInfo, made by its first reader (the authentication hook) and shared by the rest. */
export function clusterRequestOf(request: FastifyRequest): ClusterRequestInfo {
  const info = requestInfoOf(request);
  let cluster = info.family as ClusterRequestInfo | undefined;
  if (cluster === undefined) {
    cluster = new ClusterRequestInfo(request.method, request.url);
    info.family = cluster;
  }
  return cluster;
}

/** clusterRequestIfRead is the request's ClusterRequestInfo if a reader made it already, without making one. */
export function clusterRequestIfRead(request: FastifyRequest): ClusterRequestInfo | undefined {
  return request.requestInfo?.family as ClusterRequestInfo | undefined;
}

/** attributesOf reads the request attributes of a method and URL (`RequestInfoFactory.NewRequestInfo`), for a request not in flight. */
export function attributesOf(method: string, url: string, groups: Vocabulary): Attributes {
  return new ClusterRequestInfo(method, url).attributes(groups);
}

/** requestVerb is a cluster request's verb and resource, the journal's name for it (ServiceDefinition.requestMethodId). */
export function requestVerb(groups: Vocabulary): (httpMethod: string, url: string) => string {
  return (httpMethod, url) => new ClusterRequestInfo(httpMethod, url).methodId(groups);
}

function segmentsOf(path: string): string[] {
  // Every request passes here: decode only a path that needs it (once, as Go's URL.Path; one
  // that does not decode is read as sent, and the router refuses it anyway).
  let decoded = path;
  if (path.includes('%')) {
    try {
      decoded = decodeURIComponent(path);
    } catch {
      decoded = path;
    }
  }
  return decoded.split('/').filter((part) => part !== '');
}

function attributesOfInfo(info: ClusterRequestInfo, groups: Vocabulary): Attributes {
  const { method, path } = info;
  if (!info.resourceRequest) {
    return {
      verb: method.toLowerCase(),
      resourceRequest: false,
      apiGroup: '',
      apiGroupSpelled: '',
      resource: '',
      subresource: '',
      name: '',
      namespace: '',
      path,
    };
  }
  let rest = info.target;
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  // Read the query only where it decides something (lists and watches).
  const query = info.query === '' || name !== '' ? undefined : new URLSearchParams(info.query);
  let verb: string;
  switch (info.watchPath ? 'WATCH' : method.toUpperCase()) {
    case 'WATCH':
      verb = 'watch';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === '' ? 'deletecollection' : 'delete';
      break;
    case 'GET':
    case 'HEAD':
      verb = name !== '' ? 'get' : queryFlag(query?.get('watch') ?? undefined) === true ? 'watch' : 'list';
      break;
    default:
      verb = method.toLowerCase();
  }
  let itemName = name;
  // A list or watch narrowed to one name by field selector is authorized as that name.
  if ((verb === 'list' || verb === 'watch') && itemName === '') {
    const selector = /^metadata\.name==?([^,]+)$/.exec(query?.get('fieldSelector') ?? '');
    if (selector !== null) itemName = selector[1]!;
  }
  return {
    verb,
    resourceRequest: true,
    apiGroup: groups.canonical(info.group),
    apiGroupSpelled: info.group,
    resource,
    subresource,
    name: itemName,
    namespace,
    path,
  };
}
