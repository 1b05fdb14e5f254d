/**
 * authorization.k8s.io/v1 access reviews, create-only virtual resources answered from the same
 * authorizer that guards every request: SelfSubjectAccessReview ("may I do X?", `kubectl auth
 * can-i`), SelfSubjectRulesReview ("what may I do in this namespace?", `kubectl auth can-i
 * --list`), SubjectAccessReview ("may this user do X?", what webhooks and proxies ask) and its
 * namespaced form LocalSubjectAccessReview (upstream `pkg/registry/authorization/*` and
 * `pkg/apis/authorization/validation`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import type { DiscoveryResource } from '../discovery.ts';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { builtinGoStructs } from '../builtin/go-json-fields.ts';
import { badRequest, invalidObject } from '../apimachinery/status.ts';
import { checkTypeMeta } from '../apimachinery/request-body.ts';
import { rethrowUndecodedBody } from '../apimachinery/undecoded-body.ts';
import { userOf, type UserInfo } from '../cluster-auth.ts';
import { aggregateErrors, type Authorizer } from './authorizer.ts';
import type { Attributes } from './policy-rules.ts';

/** AUTHORIZATION_GROUP is the API group of the review kinds. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

/** ACCESS_REVIEW_RESOURCES are the reviews as discovery lists them (`kubectl api-resources`): create only. */
export const ACCESS_REVIEW_RESOURCES: readonly DiscoveryResource[] = [
  { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', singular: 'localsubjectaccessreview', namespaced: true },
  { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', namespaced: false },
  { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview', namespaced: false },
  { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', singular: 'subjectaccessreview', namespaced: false },
].map((review) => ({ ...review, group: AUTHORIZATION_GROUP, version: 'v1', verbs: ['create'], shortNames: [], categories: [] }));

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

function bodyOf(request: FastifyRequest, kind: string, apiVersion: string): Json {
  const body = request.body;
  rethrowUndecodedBody(body);
  checkTypeMeta(body);
  const given = body.kind;
  if (typeof given === 'string' && given !== '' && given !== kind)
    throw badRequest(
      `${given} in version "v1" cannot be handled as a ${kind}: no kind "${given}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
    );
  return body;
}

/** answer writes a review as Go writes its struct (`"metadata":{"creationTimestamp":null}`, `"allowed":false`). */
function answer(reply: FastifyReply, body: Json & { readonly kind: string }): FastifyReply {
  const encoded = builtinGoStructs.encode(`io.k8s.api.authorization.v1.${body.kind}`, body);
  return sendSerialized(reply.code(201).header('cache-control', 'no-cache, private'), 'application/json', JSON.stringify(encoded));
}

/** specAttributes checks that exactly one kind of attributes is given (`ValidateSelfSubjectAccessReviewSpec`) and reads them. */
function specAttributes(spec: Json, authorizer: Authorizer, errors: FieldError[]): Attributes {
  const resource = spec['resourceAttributes'];
  const nonResource = spec['nonResourceAttributes'];
  if (isObject(resource) && isObject(nonResource))
    errors.push(invalid('spec.nonResourceAttributes', JSON.stringify(nonResource), 'cannot be specified in combination with resourceAttributes'));
  if (!isObject(resource) && !isObject(nonResource))
    errors.push(invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (isObject(resource)) {
    return {
      verb: text(resource['verb']),
      resourceRequest: true,
      apiGroup: authorizer.groups.canonical(text(resource['group'])),
      apiGroupSpelled: text(resource['group']),
      resource: text(resource['resource']),
      subresource: text(resource['subresource']),
      name: text(resource['name']),
      namespace: text(resource['namespace']),
      path: '',
    };
  }
  return {
    verb: text(isObject(nonResource) ? nonResource['verb'] : ''),
    resourceRequest: false,
    apiGroup: '',
    apiGroupSpelled: '',
    resource: '',
    subresource: '',
    name: '',
    namespace: '',
    path: text(isObject(nonResource) ? nonResource['path'] : ''),
  };
}

/** reviewStatus is a SubjectAccessReviewStatus from a decision (RBAC never denies outright). */
function reviewStatus(authorizer: Authorizer, user: UserInfo, attributes: Attributes): Json {
  const decision = authorizer.decide(user, attributes);
  return { allowed: decision.allowed, ...(decision.reason === '' ? {} : { reason: decision.reason }) };
}

/** registerAccessReviews serves the four reviews under `/apis/<authorization group>/v1` (either spelling of the group). */
export function registerAccessReviews(app: FastifyInstance, authorizer: Authorizer, groupSpellings: readonly string[]): void {
  for (const group of new Set(groupSpellings)) {
    const apiVersion = `${group}/v1`;
    app.post(`/apis/${group}/v1/selfsubjectaccessreviews`, async (request, reply) => {
      const user = userOf(request)!;
      const body = bodyOf(request, 'SelfSubjectAccessReview', apiVersion);
      const spec = isObject(body['spec']) ? body['spec'] : {};
      const errors: FieldError[] = [];
      const attributes = specAttributes(spec, authorizer, errors);
      if (errors.length > 0) throw invalidObject({ group: AUTHORIZATION_GROUP, kind: 'SelfSubjectAccessReview' }, '', errors);
      await authorizer.refresh();
      return answer(reply, {
        kind: 'SelfSubjectAccessReview',
        apiVersion,
        metadata: { creationTimestamp: null },
        spec,
        status: reviewStatus(authorizer, user, attributes),
      });
    });

    const subjectReview = (kind: 'SubjectAccessReview' | 'LocalSubjectAccessReview') => async (request: FastifyRequest, reply: FastifyReply) => {
      const body = bodyOf(request, kind, apiVersion);
      const spec = isObject(body['spec']) ? body['spec'] : {};
      const metadata: Json = isObject(body['metadata']) ? { ...body['metadata'] } : {};
      const errors: FieldError[] = [];
      const attributes = specAttributes(spec, authorizer, errors);
      const name = text(spec['user']);
      const groups = strings(spec['groups']);
      if (name === '' && groups.length === 0) errors.push(invalid('spec.user', name, 'at least one of user or group must be specified'));
      if (kind === 'LocalSubjectAccessReview') {
        const namespace = (request.params as { namespace: string }).namespace;
        const given = text(metadata['namespace']);
        if (given !== '' && given !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
        metadata['namespace'] = namespace;
        const resource = spec['resourceAttributes'];
        if (isObject(resource) && text(resource['namespace']) !== namespace)
          errors.push(invalid('spec.resourceAttributes.namespace', text(resource['namespace']), 'must match metadata.namespace'));
        if (isObject(spec['nonResourceAttributes']))
          errors.push(invalid('spec.nonResourceAttributes', JSON.stringify(spec['nonResourceAttributes']), 'disallowed on this kind of request'));
      }
      if (errors.length > 0) throw invalidObject({ group: AUTHORIZATION_GROUP, kind }, '', errors);
      await authorizer.refresh();
      return answer(reply, {
        kind,
        apiVersion,
        metadata: { ...metadata, creationTimestamp: null },
        spec,
        status: reviewStatus(authorizer, { name, groups }, attributes),
      });
    };
    app.post(`/apis/${group}/v1/subjectaccessreviews`, subjectReview('SubjectAccessReview'));
    app.post(`/apis/${group}/v1/namespaces/:namespace/localsubjectaccessreviews`, subjectReview('LocalSubjectAccessReview'));

    app.post(`/apis/${group}/v1/selfsubjectrulesreviews`, async (request, reply) => {
      const user = userOf(request)!;
      const body = bodyOf(request, 'SelfSubjectRulesReview', apiVersion);
      const spec = isObject(body['spec']) ? body['spec'] : {};
      const namespace = text(spec['namespace']);
      if (namespace === '') throw badRequest('no namespace on request');
      await authorizer.refresh();
      const { rules, errors } = authorizer.rulesFor(user, namespace);
      const resourceRules = rules
        .filter((rule) => (rule.resources ?? []).length > 0)
        .map((rule) => ({
          verbs: rule.verbs ?? [],
          ...(rule.apiGroups === undefined ? {} : { apiGroups: rule.apiGroups }),
          resources: rule.resources,
          ...(rule.resourceNames === undefined ? {} : { resourceNames: rule.resourceNames }),
        }));
      const nonResourceRules = rules
        .filter((rule) => (rule.nonResourceURLs ?? []).length > 0)
        .map((rule) => ({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs }));
      return answer(reply, {
        kind: 'SelfSubjectRulesReview',
        apiVersion,
        metadata: { creationTimestamp: null },
        spec,
        status: { resourceRules, nonResourceRules, incomplete: false, ...(errors.length === 0 ? {} : { evaluationError: aggregateErrors(errors) }) },
      });
    });
  }
}
