import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../../core/auth.ts';
import { PUBLISHER_SCOPE_TERMS } from './identifiers.ts';
import { callerLacksPermission, insufficientScopes, invalidCredential, missingCredential, packageNotFound } from './errors.ts';

/** PUBLISHER_SCOPE is the one scope of the publishing API (the spec's `{scope_base}/publisher` reads as the same grant). */
export const PUBLISHER_SCOPE = PUBLISHER_SCOPE_TERMS[0]!.real;

const principals = new WeakMap<FastifyRequest, Principal>();

/** usePublisherAuth authenticates every request of the context it is added to, before its body is read. */
export function usePublisherAuth(app: FastifyInstance, auth: Authenticator): void {
  app.addHook('onRequest', async (request) => authenticatePublisher(request, auth));
}

/** authenticatePublisher identifies the caller and checks the API's scope, or throws the real 401 or 403. */
export function authenticatePublisher(request: FastifyRequest, auth: Authenticator): void {
  const query = request.query as Record<string, unknown> | undefined;
  // A resumable session's chunks carry its upload_id, which was authorized when the session
  // began: the session URI is the credential (as for the mail family's sessions).
  if (typeof query?.['upload_id'] === 'string') return;
  const accessToken = typeof query?.['access_token'] === 'string' ? query['access_token'] : undefined;
  const identity = auth.identify(request.headers.authorization, accessToken);
  if (identity.kind === 'anonymous') throw missingCredential();
  if (identity.kind === 'unknown-token') throw invalidCredential();
  if (!identity.principal.hasAnyScope([PUBLISHER_SCOPE])) throw insufficientScopes();
  principals.set(request, identity.principal);
}

/** PACKAGE_NAME is Android's application id syntax: two or more dot-separated segments, each a letter then letters, digits or underscores. */
const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

/**
 * authorizePackage checks the caller may publish `packageName`. A name that cannot be an app's
 * does not exist (404, which also keeps it out of file paths). Without an app list in the tokens
 * file every package is accepted; with one, a package nobody lists does not exist (404) and a
 * package listed for someone else is not the caller's to manage (403).
 */
export function authorizePackage(request: FastifyRequest, auth: Authenticator, packageName: string): Principal {
  const principal = principals.get(request);
  if (principal === undefined) throw missingCredential();
  if (!PACKAGE_NAME.test(packageName)) throw packageNotFound(packageName);
  if (principal.apps !== undefined && !principal.apps.includes(packageName)) {
    throw auth.listsApp(packageName) ? callerLacksPermission() : packageNotFound(packageName);
  }
  return principal;
}
