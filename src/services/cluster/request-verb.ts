/**
 * The request journal's name for a cluster request: the Kubernetes verb and resource, as the
 * apiserver's audit log and RBAC name them (`create clusterroles`, `watch events`, `list
 * namespaces`, `get clusterroles/status`), or the verb and path of a non-resource request
 * (`get /version`, `get /apis`). A pure reading of the method and URL, done when the journal is read.
 */

/** NAMESPACE_SUBRESOURCES are the subresources of a namespace itself, not resources inside it. */
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);

/** requestVerb is a cluster request's verb and resource (ServiceDefinition.requestMethodId). */
export function requestVerb(httpMethod: string, url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  const segments = path.split('/').filter((segment) => segment !== '');
  // /api/v1/… and /apis/{group}/{version}/…: the rest names the resource.
  let rest = segments[0] === 'api' ? segments.slice(2) : segments[0] === 'apis' ? segments.slice(3) : undefined;
  const lower = httpMethod.toLowerCase();
  if (rest === undefined || rest.length === 0) return `${lower === 'head' ? 'get' : lower} ${path}`;
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  // As the apiserver's RequestInfoFactory: `namespaces/{name}/status|finalize` are the namespace's own subresources.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  const [resource, name, subresource] = rest;
  const target = subresource === undefined ? (resource ?? '') : `${resource}/${subresource}`;
  const watching = watchPath || ['1', 'true'].includes(params.get('watch') ?? '');
  switch (httpMethod) {
    case 'GET':
    case 'HEAD':
      if (watching) return `watch ${target}`;
      return `${name === undefined ? 'list' : 'get'} ${target}`;
    case 'POST':
      return `create ${target}`;
    case 'PUT':
      return `update ${target}`;
    case 'PATCH':
      return `patch ${target}`;
    case 'DELETE':
      return `${name === undefined ? 'deletecollection' : 'delete'} ${target}`;
    default:
      return `${lower} ${target}`;
  }
}
