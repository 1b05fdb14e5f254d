/**
 * ServiceAccount issuer discovery (upstream `pkg/serviceaccount/openidmetadata.go`,
 * `pkg/routes/openidmetadata.go`): `/.well-known/openid-configuration` names the issuer and
 * where its keys are, `/openid/v1/jwks` lists the public signing key, so a relying party (Vault,
 * a cloud's workload identity, a test with node:crypto) can check tokens without calling the
 * apiserver. Both are non-resource URLs RBAC authorizes (`system:service-account-issuer-discovery`,
 * bound to every ServiceAccount). `jwks_uri` points back at the address the request came in on.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendSerialized } from '../apimachinery/send-serialized.ts';
import { SERVICE_ACCOUNT_ISSUER } from './service-account-tokens.ts';
import type { SigningKey, SigningKeySource } from './signing-key.ts';

/** OPENID_CONFIGURATION_PATH and JWKS_PATH are where the documents are served. */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** CACHE_MAX_AGE_SECONDS is the apiserver's `max-age` on both documents (an hour). */
const CACHE_MAX_AGE_SECONDS = 3600;

/** jwksOf is the JSON Web Key Set of the signing key, members in go-jose's order. */
export function jwksOf(key: SigningKey): { keys: Record<string, string>[] } {
  const jwk = key.publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  return { keys: [{ use: 'sig', kty: 'RSA', kid: key.kid, alg: 'RS256', n: jwk.n, e: jwk.e }] };
}

/** openIdConfiguration is the discovery document for a server reached at `origin`. */
export function openIdConfiguration(origin: string): Record<string, unknown> {
  return {
    issuer: SERVICE_ACCOUNT_ISSUER,
    jwks_uri: `${origin}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  };
}

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? '127.0.0.1'}`;
}

function send(reply: FastifyReply, contentType: string, body: unknown): FastifyReply {
  reply.code(200).header('cache-control', `public, max-age=${CACHE_MAX_AGE_SECONDS}`);
  return sendSerialized(reply, contentType, JSON.stringify(body), { negotiated: false });
}

/** registerOidcDiscovery serves both documents (the family's router takes a trailing slash too, as the apiserver does). */
export function registerOidcDiscovery(app: FastifyInstance, keys: SigningKeySource): void {
  app.get(OPENID_CONFIGURATION_PATH, async (request, reply) => send(reply, 'application/json', openIdConfiguration(originOf(request))));
  app.get(JWKS_PATH, async (_request, reply) => send(reply, 'application/jwk-set+json', jwksOf(await keys.key())));
}
