/**
 * Authorization of every cluster request, after authentication: the request's attributes are
 * its ClusterRequestInfo's (request-info.ts, read once per request as the apiserver's
 * RequestInfoFactory reads them), impersonation headers are
 * honoured for principals allowed to `impersonate`, and a refusal is the real 403 with the
 * `forbiddenMessage` text.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Vocabulary } from '../../../core/identifiers.ts';
import { setUserOf, userOf, type UserInfo } from '../cluster-auth.ts';
import { clusterRequestOf } from '../request-info.ts';
import { badRequest, StatusError } from '../apimachinery/status.ts';
import { MASTERS_GROUP, type Authorizer } from './authorizer.ts';
import type { Attributes } from './policy-rules.ts';

/** forbiddenMessage is the apiserver's text for a refused request. */
export function forbiddenMessage(user: UserInfo, attributes: Attributes): string {
  if (!attributes.resourceRequest) return `User ${JSON.stringify(user.name)} cannot ${attributes.verb} path ${JSON.stringify(attributes.path)}`;
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const scope = attributes.namespace === '' ? 'at the cluster scope' : `in the namespace ${JSON.stringify(attributes.namespace)}`;
  return `User ${JSON.stringify(user.name)} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.apiGroupSpelled)} ${scope}`;
}

/** forbidden is `NewForbidden(groupResource, name, err)`: `<gr>[ "<name>"] is forbidden: <why>`, or `forbidden: <why>` without a resource. */
export function forbidden(group: string, resource: string, name: string, why: string): StatusError {
  if (resource === '') return new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  const gr = group === '' ? resource : `${resource}.${group}`;
  const message = name === '' ? `${gr} is forbidden: ${why}` : `${gr} ${JSON.stringify(name)} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, { ...(name === '' ? {} : { name }), ...(group === '' ? {} : { group }), kind: resource });
}

function headerValues(request: FastifyRequest, name: string): string[] {
  const value = request.headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value])
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** impersonate applies `Impersonate-User` / `Impersonate-Group` headers after checking the `impersonate` verb for each. */
function impersonate(authorizer: Authorizer, user: UserInfo, request: FastifyRequest): UserInfo {
  const asUser = headerValues(request, 'impersonate-user')[0];
  const asGroups = headerValues(request, 'impersonate-group');
  const extras = Object.keys(request.headers).filter((header) => header.startsWith('impersonate-extra-'));
  if (asUser === undefined) {
    if (asGroups.length > 0 || extras.length > 0) throw badRequest('requested impersonation of groups or extras without impersonating a user');
    return user;
  }
  const check = (resource: string, name: string, namespace = ''): void => {
    const attributes: Attributes = {
      verb: 'impersonate',
      resourceRequest: true,
      apiGroup: '',
      apiGroupSpelled: '',
      resource,
      subresource: '',
      name,
      namespace,
      path: '',
    };
    const decision = authorizer.decide(user, attributes);
    if (!decision.allowed) throw forbidden('', resource, name, withReason(forbiddenMessage(user, attributes), decision.reason));
  };
  // A service account's user name is impersonated as that account: `impersonate` on serviceaccounts, and its fixed groups.
  const account = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(asUser);
  if (account === null) check('users', asUser);
  else check('serviceaccounts', account[2]!, account[1]!);
  for (const group of asGroups) check('groups', group);
  for (const header of extras) for (const value of headerValues(request, header)) check(`userextras/${header.slice('impersonate-extra-'.length)}`, value);
  const anonymous = asUser === 'system:anonymous';
  const groups = account !== null && asGroups.length === 0 ? ['system:serviceaccounts', `system:serviceaccounts:${account[1]!}`] : [...asGroups];
  const implied = anonymous ? 'system:unauthenticated' : 'system:authenticated';
  if (!groups.includes(implied)) groups.push(implied);
  return { name: asUser, groups };
}

/** withReason appends a refusal's authorizer reason (`RBAC: role… not found`) as the apiserver does. */
function withReason(message: string, reason: string): string {
  return reason === '' ? message : `${message}: ${reason}`;
}

/** useClusterAuthorization authorizes every authenticated request of the family (register after useClusterAuth). */
export function useClusterAuthorization(app: FastifyInstance, authorizer: Authorizer, groups: Vocabulary): void {
  // A callback hook, synchronous when the policy need not be brought up to date: every request
  // passes here, and a promise per request showed in the GET profile (bench/cluster-get-create.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    const authenticated = userOf(request);
    // Without a user this is a public path (authentication refused the rest): system:public-info-viewer's.
    if (authenticated === undefined) {
      done();
      return;
    }
    const decide = (): void => {
      try {
        authorizeRequest(request, authorizer, authenticated, groups);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    // system:masters is allowed everything whatever the policy says, so its requests (the admin
    // token's) skip bringing the policy up to date, a store round trip on postgres, unless they
    // impersonate someone (GET ClusterRole on postgres, bench/cluster-get-create.ts: see the commit).
    if ((authenticated.groups.includes(MASTERS_GROUP) && request.headers['impersonate-user'] === undefined) || authorizer.isCurrent()) decide();
    else authorizer.refresh().then(decide, done);
  });
}

/** authorizeRequest applies impersonation and decides the request (the policy is current); throws the real 403. */
function authorizeRequest(request: FastifyRequest, authorizer: Authorizer, authenticated: UserInfo, groups: Vocabulary): void {
  const user = impersonate(authorizer, authenticated, request);
  if (user !== authenticated) setUserOf(request, user);
  // system:masters is allowed everything (Authorizer.decide): no attributes to read.
  if (user.groups.includes(MASTERS_GROUP)) return;
  const attributes = clusterRequestOf(request).attributes(groups);
  const decision = authorizer.decide(user, attributes);
  if (decision.allowed) return;
  throw forbidden(
    attributes.resourceRequest ? attributes.apiGroupSpelled : '',
    attributes.resourceRequest ? attributes.resource : '',
    attributes.name,
    withReason(forbiddenMessage(user, attributes), decision.reason),
  );
}
