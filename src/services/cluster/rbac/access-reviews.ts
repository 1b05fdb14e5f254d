/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview ("may I do X?", `kubectl auth can-i`) and
 * SelfSubjectRulesReview ("what may I do?", `kubectl auth can-i --list`): create-only virtual
 * resources answered from the same authorizer that guards every request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import type { DiscoveryResource } from '../discovery.ts';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { badRequest, invalidObject } from '../apimachinery/status.ts';
import { checkTypeMeta } from '../apimachinery/request-body.ts';
import { rethrowUndecodedBody } from '../apimachinery/undecoded-body.ts';
import { userOf } from '../cluster-auth.ts';
import type { Authorizer } from './authorizer.ts';
import type { Attributes } from './policy-rules.ts';

/** AUTHORIZATION_GROUP is the API group of the review kinds. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

/** ACCESS_REVIEW_RESOURCES are the reviews as discovery lists them (`kubectl api-resources`): cluster-scoped, create only. */
export const ACCESS_REVIEW_RESOURCES: readonly DiscoveryResource[] = [
  { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview' },
  { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview' },
].map((review) => ({ ...review, group: AUTHORIZATION_GROUP, version: 'v1', namespaced: false, verbs: ['create'], shortNames: [], categories: [] }));

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

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

function answer(reply: FastifyReply, body: unknown): FastifyReply {
  return sendSerialized(reply.code(201).header('cache-control', 'no-cache, private'), 'application/json', JSON.stringify(body));
}

/** registerAccessReviews serves the two self reviews under `/apis/<authorization group>/v1` (either spelling of the group). */
export function registerAccessReviews(app: FastifyInstance, authorizer: Authorizer, groupSpellings: readonly string[]): void {
  for (const group of new Set(groupSpellings)) {
    const apiVersion = `${group}/v1`;
    app.post(`/apis/${group}/v1/selfsubjectaccessreviews`, async (request, reply) => {
      const user = userOf(request)!;
      const body = bodyOf(request, 'SelfSubjectAccessReview', apiVersion);
      const spec = isObject(body['spec']) ? body['spec'] : {};
      const resource = spec['resourceAttributes'];
      const nonResource = spec['nonResourceAttributes'];
      const errors: FieldError[] = [];
      if (isObject(resource) && isObject(nonResource))
        errors.push(invalid('spec.nonResourceAttributes', JSON.stringify(nonResource), 'cannot be specified in combination with resourceAttributes'));
      if (!isObject(resource) && !isObject(nonResource))
        errors.push(invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
      if (errors.length > 0) throw invalidObject({ group: AUTHORIZATION_GROUP, kind: 'SelfSubjectAccessReview' }, '', errors);
      const attributes: Attributes = isObject(resource)
        ? {
            verb: text(resource['verb']),
            resourceRequest: true,
            apiGroup: authorizer.groups.canonical(text(resource['group'])),
            apiGroupSpelled: text(resource['group']),
            resource: text(resource['resource']),
            subresource: text(resource['subresource']),
            name: text(resource['name']),
            namespace: text(resource['namespace']),
            path: '',
          }
        : {
            verb: text((nonResource as Json)['verb']),
            resourceRequest: false,
            apiGroup: '',
            apiGroupSpelled: '',
            resource: '',
            subresource: '',
            name: '',
            namespace: '',
            path: text((nonResource as Json)['path']),
          };
      await authorizer.refresh();
      const decision = authorizer.decide(user, attributes);
      return answer(reply, {
        kind: 'SelfSubjectAccessReview',
        apiVersion,
        metadata: { creationTimestamp: null },
        spec,
        status: { allowed: decision.allowed, ...(decision.reason === '' ? {} : { reason: decision.reason }) },
      });
    });
    app.post(`/apis/${group}/v1/selfsubjectrulesreviews`, async (request, reply) => {
      const user = userOf(request)!;
      const body = bodyOf(request, 'SelfSubjectRulesReview', apiVersion);
      const spec = isObject(body['spec']) ? body['spec'] : {};
      await authorizer.refresh();
      const rules = authorizer.rulesFor(user);
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
        status: { resourceRules, nonResourceRules, incomplete: false },
      });
    });
  }
}
