/**
 * The authorization.k8s.io/v1 review types (upstream `k8s.io/api/authorization/v1`), for the
 * group-version's OpenAPI v3 document, so `kubectl create -f` of a review validates and `kubectl
 * explain subjectaccessreview` works. Descriptions are upstream's.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { META_SCHEMAS, TYPE_FIELDS } from '../resources/meta-schemas.ts';

const AUTHORIZATION = 'io.k8s.api.authorization.v1';
const str = (description: string): Schema => ({ type: 'string', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, listType: 'atomic', description });
const refTo = (name: string): Schema => ({ $ref: `${AUTHORIZATION}.${name}` });

/** ACCESS_REVIEW_SCHEMA_NAMES are the component names of the four reviews, by kind. */
export const ACCESS_REVIEW_SCHEMA_NAMES: Readonly<Record<string, string>> = {
  LocalSubjectAccessReview: `${AUTHORIZATION}.LocalSubjectAccessReview`,
  SelfSubjectAccessReview: `${AUTHORIZATION}.SelfSubjectAccessReview`,
  SelfSubjectRulesReview: `${AUTHORIZATION}.SelfSubjectRulesReview`,
  SubjectAccessReview: `${AUTHORIZATION}.SubjectAccessReview`,
};

const review = (goName: string, description: string, spec: string, status: string): Schema => ({
  type: 'object',
  goName,
  description,
  required: ['spec'],
  properties: { ...TYPE_FIELDS, spec: refTo(spec), status: refTo(status) },
});

const ATTRIBUTES_NOTE = 'Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set';

/** AUTHORIZATION_V1_SCHEMAS describe authorization.k8s.io/v1 as served here. */
export const AUTHORIZATION_V1_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [ACCESS_REVIEW_SCHEMA_NAMES['SubjectAccessReview']!]: review(
    'SubjectAccessReview',
    'SubjectAccessReview checks whether or not a user or group can perform an action.',
    'SubjectAccessReviewSpec',
    'SubjectAccessReviewStatus',
  ),
  [ACCESS_REVIEW_SCHEMA_NAMES['LocalSubjectAccessReview']!]: review(
    'LocalSubjectAccessReview',
    'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace. Having a namespace scoped resource makes it much easier to grant namespace scoped policy that includes permissions checking.',
    'SubjectAccessReviewSpec',
    'SubjectAccessReviewStatus',
  ),
  [ACCESS_REVIEW_SCHEMA_NAMES['SelfSubjectAccessReview']!]: review(
    'SelfSubjectAccessReview',
    'SelfSubjectAccessReview checks whether or the current user can perform an action.  Not filling in a spec.namespace means "in all namespaces".  Self is a special case, because users should always be able to check whether they can perform an action',
    'SelfSubjectAccessReviewSpec',
    'SubjectAccessReviewStatus',
  ),
  [ACCESS_REVIEW_SCHEMA_NAMES['SelfSubjectRulesReview']!]: review(
    'SelfSubjectRulesReview',
    "SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace. The returned list of actions may be incomplete depending on the server's authorization mode, and any errors experienced during the evaluation. SelfSubjectRulesReview should be used by UIs to show/hide actions, or to quickly let an end user reason about their permissions. It should NOT Be used by external systems to drive authorization decisions as this raises confused deputy, cache lifetime/revocation, and correctness concerns. SubjectAccessReview, and LocalAccessReview are the correct way to defer authorization decisions to the API server.",
    'SelfSubjectRulesReviewSpec',
    'SubjectRulesReviewStatus',
  ),
  [`${AUTHORIZATION}.SubjectAccessReviewSpec`]: {
    type: 'object',
    goName: 'SubjectAccessReviewSpec',
    description: `SubjectAccessReviewSpec is a description of the access request.  ${ATTRIBUTES_NOTE}`,
    properties: {
      extra: {
        type: 'map',
        values: { type: 'array', items: { type: 'string' } },
        description:
          'Extra corresponds to the user.Info.GetExtra() method from the authenticator.  Since that is input to the authorizer it needs a reflection here.',
      },
      groups: strings("Groups is the groups you're testing for."),
      nonResourceAttributes: refTo('NonResourceAttributes'),
      resourceAttributes: refTo('ResourceAttributes'),
      uid: str('UID information about the requesting user.'),
      user: str(
        'User is the user you\'re testing for. If you specify "User" but not "Groups", then is it interpreted as "What if User were not a member of any groups',
      ),
    },
  },
  [`${AUTHORIZATION}.SelfSubjectAccessReviewSpec`]: {
    type: 'object',
    goName: 'SelfSubjectAccessReviewSpec',
    description: `SelfSubjectAccessReviewSpec is a description of the access request.  ${ATTRIBUTES_NOTE}`,
    properties: { nonResourceAttributes: refTo('NonResourceAttributes'), resourceAttributes: refTo('ResourceAttributes') },
  },
  [`${AUTHORIZATION}.SelfSubjectRulesReviewSpec`]: {
    type: 'object',
    goName: 'SelfSubjectRulesReviewSpec',
    description: 'SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.',
    properties: { namespace: str('Namespace to evaluate rules for. Required.') },
  },
  [`${AUTHORIZATION}.ResourceAttributes`]: {
    type: 'object',
    goName: 'ResourceAttributes',
    description: 'ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface',
    properties: {
      group: str('Group is the API Group of the Resource.  "*" means all.'),
      name: str('Name is the name of the resource being requested for a "get" or deleted for a "delete". "" (empty) means all.'),
      namespace: str(
        'Namespace is the namespace of the action being requested.  Currently, there is no distinction between no namespace and all namespaces "" (empty) is defaulted for LocalSubjectAccessReviews "" (empty) is empty for cluster-scoped resources "" (empty) means "all" for namespace scoped resources from a SubjectAccessReview or SelfSubjectAccessReview',
      ),
      resource: str('Resource is one of the existing resource types.  "*" means all.'),
      subresource: str('Subresource is one of the existing resource types.  "" means none.'),
      verb: str('Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy.  "*" means all.'),
      version: str('Version is the API Version of the Resource.  "*" means all.'),
    },
  },
  [`${AUTHORIZATION}.NonResourceAttributes`]: {
    type: 'object',
    goName: 'NonResourceAttributes',
    description: 'NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface',
    properties: { path: str('Path is the URL path of the request'), verb: str('Verb is the standard HTTP verb') },
  },
  [`${AUTHORIZATION}.SubjectAccessReviewStatus`]: {
    type: 'object',
    goName: 'SubjectAccessReviewStatus',
    description: 'SubjectAccessReviewStatus',
    required: ['allowed'],
    properties: {
      allowed: { type: 'boolean', description: 'Allowed is required. True if the action would be allowed, false otherwise.' },
      denied: {
        type: 'boolean',
        description:
          'Denied is optional. True if the action would be denied, otherwise false. If both allowed is false and denied is false, then the authorizer has no opinion on whether to authorize the action. Denied may not be true if Allowed is true.',
      },
      evaluationError: str(
        'EvaluationError is an indication that some error occurred during the authorization check. It is entirely possible to get an error and be able to continue determine authorization status in spite of it. For instance, RBAC can be missing a role, but enough roles are still present and bound to reason about the request.',
      ),
      reason: str('Reason is optional.  It indicates why a request was allowed or denied.'),
    },
  },
  [`${AUTHORIZATION}.SubjectRulesReviewStatus`]: {
    type: 'object',
    goName: 'SubjectRulesReviewStatus',
    description:
      "SubjectRulesReviewStatus contains the result of a rules check. This check can be incomplete depending on the set of authorizers the server is configured with and any errors experienced during evaluation. Because authorization rules are additive, if a rule appears in a list it's safe to assume the subject has that permission, even if that list is incomplete.",
    required: ['resourceRules', 'nonResourceRules', 'incomplete'],
    properties: {
      evaluationError: str(
        "EvaluationError can appear in combination with Rules. It indicates an error occurred during rule evaluation, such as an authorizer that doesn't support rule evaluation, and that ResourceRules and/or NonResourceRules may be incomplete.",
      ),
      incomplete: {
        type: 'boolean',
        description:
          "Incomplete is true when the rules returned by this call are incomplete. This is most commonly encountered when an authorizer, such as an external authorizer, doesn't support rules evaluation.",
      },
      nonResourceRules: {
        type: 'array',
        items: refTo('NonResourceRule'),
        listType: 'atomic',
        description:
          "NonResourceRules is the list of actions the subject is allowed to perform on non-resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
      },
      resourceRules: {
        type: 'array',
        items: refTo('ResourceRule'),
        listType: 'atomic',
        description:
          "ResourceRules is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
      },
    },
  },
  [`${AUTHORIZATION}.ResourceRule`]: {
    type: 'object',
    goName: 'ResourceRule',
    description:
      "ResourceRule is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
    required: ['verbs'],
    properties: {
      apiGroups: strings(
        'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed.  "*" means all.',
      ),
      resourceNames: strings(
        'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.  "*" means all.',
      ),
      resources: strings(
        'Resources is a list of resources this rule applies to.  "*" means all in the specified apiGroups.\n "*/foo" represents the subresource \'foo\' for all resources in the specified apiGroups.',
      ),
      verbs: strings('Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy.  "*" means all.'),
    },
  },
  [`${AUTHORIZATION}.NonResourceRule`]: {
    type: 'object',
    goName: 'NonResourceRule',
    description: 'NonResourceRule holds information that describes a rule for the non-resource',
    required: ['verbs'],
    properties: {
      nonResourceURLs: strings(
        'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path.  "*" means all.',
      ),
      verbs: strings('Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options.  "*" means all.'),
    },
  },
};
