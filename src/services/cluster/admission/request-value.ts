/**
 * The `request` and `authorizer` variables of admission expressions (policies' and webhooks'
 * matchConditions): the AdmissionRequest without its uid and objects, and the authz library's
 * Authorizer for the requesting user (a ServiceAccount's groups for `serviceAccount(ns, name)`).
 */
import type { AnyView } from '../apimachinery/strategy.ts';
import type { UserInfo } from '../cluster-auth.ts';
import { AuthorizerValue, type AuthzDecision, type AuthzRequest } from '../crd/cel/library-authz.ts';
import type { AdmissionAttributes } from './attributes.ts';

function kindOf(view: AnyView): { group: string; version: string; kind: string } {
  return view.responseKind ?? { group: view.group, version: view.version, kind: view.kind };
}

/** requestValue is the `request` variable (AdmissionRequest without uid and objects). */
export function requestValue(attributes: AdmissionAttributes): Record<string, unknown> {
  const { view, userInfo } = attributes;
  const resource = { group: view.group, version: view.version, resource: view.resource };
  return {
    kind: kindOf(view),
    resource,
    subResource: view.subresource ?? '',
    requestKind: kindOf(view),
    requestResource: resource,
    requestSubResource: view.subresource ?? '',
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: {
      username: userInfo.name,
      ...(userInfo.uid === undefined ? {} : { uid: userInfo.uid }),
      groups: [...userInfo.groups],
      ...(userInfo.extra === undefined ? {} : { extra: userInfo.extra }),
    },
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
}

/** authorizerValue is the `authorizer` variable: checks for the requesting user, or a ServiceAccount named with serviceAccount(). */
export function authorizerValue(attributes: AdmissionAttributes, decide: (user: UserInfo, request: AuthzRequest) => AuthzDecision): AuthorizerValue {
  const requester = attributes.userInfo;
  return new AuthorizerValue(requester.name, (name, request) => {
    if (name === requester.name) return decide(requester, request);
    const parts = name.split(':');
    const groups = parts.length === 4 ? ['system:serviceaccounts', `system:serviceaccounts:${parts[2]}`, 'system:authenticated'] : ['system:authenticated'];
    return decide({ name, groups }, request);
  });
}
