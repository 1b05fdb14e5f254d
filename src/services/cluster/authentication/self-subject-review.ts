/**
 * authentication.k8s.io/v1 SelfSubjectReview ("who am I?", `kubectl auth whoami`): a create-only
 * virtual resource answering the user the request authenticated as (after impersonation). Every
 * authenticated user may create one (the default policy's `system:basic-user`).
 */
import { builtinGoStructs } from '../builtin/go-json-fields.ts';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../lib/clock.ts';
import type { DiscoveryResource } from '../discovery.ts';
import { checkTypeMeta } from '../apimachinery/request-body.ts';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { badRequest } from '../apimachinery/status.ts';
import { rethrowUndecodedBody } from '../apimachinery/undecoded-body.ts';
import { userOf, type UserInfo } from '../cluster-auth.ts';
import { SELF_SUBJECT_REVIEW_SCHEMA_NAME } from './self-subject-review-schemas.ts';

/** AUTHENTICATION_GROUP is the API group of SelfSubjectReview. */
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** SELF_SUBJECT_REVIEW_RESOURCE is the review as discovery lists it: cluster-scoped, create only. */
export const SELF_SUBJECT_REVIEW_RESOURCE: DiscoveryResource = {
  group: AUTHENTICATION_GROUP,
  version: 'v1',
  resource: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  kind: 'SelfSubjectReview',
  namespaced: false,
  verbs: ['create'],
  shortNames: [],
  categories: [],
};

const KIND = 'SelfSubjectReview';

// The body is decoded only for its type: the review has no input (its status is the server's).
function checkBody(body: unknown, apiVersion: string): void {
  rethrowUndecodedBody(body);
  checkTypeMeta(body);
  const kind = body.kind;
  if (typeof kind === 'string' && kind !== '' && kind !== KIND) {
    throw badRequest(
      `${kind} in version "v1" cannot be handled as a ${KIND}: no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
    );
  }
}

/** formatCreationTime renders an instant as a Kubernetes `Time` (RFC 3339, whole seconds). */
function formatCreationTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** registerSelfSubjectReview serves the review under `/apis/<authentication group>/v1` (either spelling of the group). */
export function registerSelfSubjectReview(app: FastifyInstance, clock: Clock, groupSpellings: readonly string[]): void {
  for (const group of new Set(groupSpellings)) {
    const apiVersion = `${group}/v1`;
    app.post(`/apis/${group}/v1/selfsubjectreviews`, async (request, reply) => {
      checkBody(request.body, apiVersion);
      const user = userOf(request)!;
      const body = {
        kind: KIND,
        apiVersion,
        metadata: { creationTimestamp: formatCreationTime(clock.now()) },
        status: { userInfo: userInfoBody(user) },
      };
      return sendSerialized(
        reply.code(201).header('cache-control', 'no-cache, private'),
        'application/json',
        JSON.stringify(builtinGoStructs.encode(SELF_SUBJECT_REVIEW_SCHEMA_NAME, body)),
      );
    });
  }
}

/** userInfoBody is authentication.k8s.io/v1 UserInfo of a user, empty fields omitted as Go's encoder does (a ServiceAccount has a uid and extra). */
export function userInfoBody(user: UserInfo): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid === undefined || user.uid === '' ? {} : { uid: user.uid }),
    ...(user.groups.length === 0 ? {} : { groups: user.groups }),
    ...(user.extra === undefined || Object.keys(user.extra).length === 0 ? {} : { extra: user.extra }),
  };
}
