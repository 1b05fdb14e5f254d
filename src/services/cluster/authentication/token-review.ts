/**
 * authentication.k8s.io/v1 TokenReview (upstream `pkg/registry/authentication/tokenreview`): a
 * create-only review asking "whose token is this?", as webhook-token authenticators and
 * auth proxies ask the apiserver. The token is read as a request's bearer token would be, for
 * the review's audiences (default the API audiences): a ServiceAccount token by the token
 * service, a token of fogbank's own (the admin token, the tokens file) as the apiserver's
 * audience-agnostic static tokens are. The answer (201) carries `status.authenticated`, the user
 * and the audiences, or `status.error` with the authenticator's text; `authenticated: false` is
 * omitted, as Go's encoder omits it. Callers need `create` on `tokenreviews` (system:auth-delegator).
 */
import { builtinGoStructs } from '../builtin/go-json-fields.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../../core/auth.ts';
import { ADMIN_EMAIL } from '../../../core/auth.ts';
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { DiscoveryResource } from '../discovery.ts';
import type { UserInfo } from '../cluster-auth.ts';
import { parseWriteQuery, type Query } from '../apimachinery/query-options.ts';
import { decodeKindBody } from '../apimachinery/request-body.ts';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { badRequest } from '../apimachinery/status.ts';
import { rethrowUndecodedBody } from '../apimachinery/undecoded-body.ts';
import { userInfoBody } from './self-subject-review.ts';
import { API_AUDIENCES, type ServiceAccountTokens, type TokenOutcome } from './service-account-tokens.ts';
import { TOKEN_REVIEW_SCHEMA_NAME, TOKEN_SCHEMAS } from './token-schemas.ts';

const KIND = 'TokenReview';
const GROUP = 'authentication.k8s.io';

/** TOKEN_REVIEW_RESOURCE is the review as discovery lists it: cluster-scoped, create only. */
export const TOKEN_REVIEW_RESOURCE: DiscoveryResource = {
  group: GROUP,
  version: 'v1',
  resource: 'tokenreviews',
  singular: 'tokenreview',
  kind: KIND,
  namespaced: false,
  verbs: ['create'],
  shortNames: [],
  categories: [],
};

/** INVALID_BEARER_TOKEN is the bearer-token authenticator's error when no token authenticator knew the token. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** staticTokenUser is the user one of fogbank's own tokens stands for (cluster-auth's mapping), or undefined. */
export function staticTokenUser(auth: Authenticator, token: string): UserInfo | undefined {
  const identity = auth.identify(`Bearer ${token}`);
  if (identity.kind !== 'principal') return undefined;
  const admin = identity.principal.email === ADMIN_EMAIL;
  return {
    name: admin ? 'system:admin' : identity.principal.email,
    groups: admin ? ['system:masters', 'system:authenticated'] : [...identity.principal.groups, 'system:authenticated'],
  };
}

/**
 * reviewToken authenticates `token` for `audiences` as the apiserver's authenticator chain does:
 * the static tokens (audience-agnostic: valid for the API audiences only), then the
 * ServiceAccount tokens; nothing known is `invalid bearer token`.
 */
export async function reviewToken(
  auth: Authenticator,
  tokens: ServiceAccountTokens,
  token: string,
  audiences: readonly string[],
  nowMs: number,
): Promise<TokenOutcome> {
  const user = /\s/.test(token) ? undefined : staticTokenUser(auth, token);
  if (user !== undefined) {
    const granted = API_AUDIENCES.filter((audience) => audiences.includes(audience));
    if (granted.length > 0) return { kind: 'user', user, audiences: granted };
  }
  const outcome = await tokens.authenticate(token, nowMs, audiences);
  return outcome.kind === 'none' ? { kind: 'error', error: INVALID_BEARER_TOKEN } : outcome;
}

function decodeReview(request: FastifyRequest, groups: Vocabulary): { token: string; audiences: string[] | undefined; warnings: string[] } {
  const options = parseWriteQuery((request.query ?? {}) as Query, 'CreateOptions');
  const raw = request.body;
  rethrowUndecodedBody(raw);
  const decoded = decodeKindBody(
    raw,
    { kind: KIND, version: 'v1', apiVersion: `${GROUP}/v1`, schemaName: TOKEN_REVIEW_SCHEMA_NAME, schemas: TOKEN_SCHEMAS },
    groups,
    options.fieldValidation,
  );
  const spec = (decoded.value as { spec?: { token?: string; audiences?: string[] } }).spec ?? {};
  return { token: spec.token ?? '', audiences: spec.audiences, warnings: decoded.warnings };
}

/** TokenReviewDeps are what the review needs. */
export interface TokenReviewDeps {
  readonly auth: Authenticator;
  readonly tokens: ServiceAccountTokens;
  readonly clock: Clock;
  readonly groups: Vocabulary;
}

/** registerTokenReview serves the review under `/apis/<authentication group>/v1` (either spelling of the group). */
export function registerTokenReview(app: FastifyInstance, deps: TokenReviewDeps, groupSpellings: readonly string[]): void {
  for (const group of new Set(groupSpellings)) {
    const apiVersion = `${group}/v1`;
    app.post(`/apis/${group}/v1/tokenreviews`, async (request, reply) => {
      const { token, audiences, warnings } = decodeReview(request, deps.groups);
      if (token === '') throw badRequest(`token is required for TokenReview in ${GROUP}`);
      const asked = audiences === undefined || audiences.length === 0 ? API_AUDIENCES : audiences;
      const outcome = await reviewToken(deps.auth, deps.tokens, token, asked, deps.clock.now());
      const spec = { token, ...(audiences === undefined ? {} : { audiences }) };
      const status =
        outcome.kind === 'user'
          ? { authenticated: true, user: userInfoBody(outcome.user), audiences: outcome.audiences }
          : { user: {}, ...(outcome.kind === 'error' ? { error: outcome.error } : {}) };
      const body = { kind: KIND, apiVersion, metadata: { creationTimestamp: null }, spec, status };
      reply.code(201).header('cache-control', 'no-cache, private');
      if (warnings.length > 0)
        reply.header(
          'warning',
          warnings.map((text) => `299 - ${JSON.stringify(text)}`),
        );
      return sendSerialized(reply, 'application/json', JSON.stringify(builtinGoStructs.encode(TOKEN_REVIEW_SCHEMA_NAME, body)));
    });
  }
}
