/**
 * The cluster family's face: what the layers above it (the console, bench, cli) may use of who a
 * request is and what RBAC lets it do — the request identity (UserInfo, the cluster user a
 * fogbank token acts as), the API-group vocabulary (`k8s.io` and the spec's spelling), the RBAC
 * authorizer with the attributes it decides on and the apiserver's Forbidden answer — so the
 * files, routes and store kinds inside the family can change without them (test/architecture/
 * refuses any other import from outside the family). What the cluster serves (its views,
 * discovery, namespaces) is a face of its own, public-views.ts, as it loads every kind's schema;
 * this one stays light, so the console's routes can load it before the first cluster view.
 * Re-exports only: the definitions live where the family uses them.
 */
export { type UserInfo, clusterUserOf } from './cluster-auth.ts';
export { apiGroupVocabulary, DEFAULT_API_DOMAIN } from './identifiers.ts';
export { Authorizer, type Decision, type Grants, type GrantedRules, MASTERS_GROUP } from './rbac/authorizer.ts';
export { forbidden, forbiddenMessage } from './rbac/authorize-requests.ts';
export { attributesOf } from './request-info.ts';
export type { Attributes } from './rbac/policy-rules.ts';
export type { PolicyRule } from './resources/cluster-roles.ts';
export type { Subject } from './resources/cluster-role-bindings.ts';
