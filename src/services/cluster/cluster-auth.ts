/**
 * Who a cluster API request comes from: a TLS client certificate signed by fogbank's CA (CN =
 * user, O = groups, as the apiserver's x509 authenticator reads it), else the bearer token's
 * principal as a Kubernetes user.
 * A principal's user name is its email (as on GKE); the admin token is `system:admin` in
 * `system:masters`. No token, or one nobody issued, is the real 401 `Unauthorized`.
 *
 * kubectl (client-go) never sends a bearer token over plain HTTP, and fogbank serves HTTP on
 * loopback; so the kubeconfig fogbank writes carries the token as the password of the server
 * URL (`http://fogbank:TOKEN@127.0.0.1:8780`), which Go's HTTP client sends as Basic
 * credentials. A Basic password is therefore read as a bearer token.
 *
 * A token core does not know may be a ServiceAccount token (a JWT fogbank signed): the family
 * hands that to its token authenticator (authentication/service-account-tokens.ts), which answers
 * the account's user or nothing; nothing is the same 401.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_EMAIL, type Authenticator, type Principal } from '../../core/auth.ts';
import { clientCertificateOf } from '../../core/tls/client-certificate.ts';
import { unauthorized } from './apimachinery/status.ts';
import { clusterRequestIfRead, clusterRequestOf } from './request-info.ts';

/** UserInfo is an authenticated Kubernetes user. */
export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
  /** The user's uid (a ServiceAccount's), when the authenticator knows one. */
  readonly uid?: string;
  /** Extra attributes (a ServiceAccount token's credential id), keys in sorted order. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** TokenAuthenticator reads a bearer token core's Authenticator does not know: the user, or undefined when the token is not valid. */
export type TokenAuthenticator = (token: string) => Promise<UserInfo | undefined>;

/** CREDENTIAL_ID is the extra key naming the credential a user authenticated with. */
export const CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

/** PUBLIC_PATHS answer without credentials (the real server's `system:public-info-viewer`). */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/version', '/livez', '/readyz', '/healthz']);

/** userOf is the authenticated user of a request (undefined on public paths without a token), kept in its ClusterRequestInfo. */
export function userOf(request: FastifyRequest): UserInfo | undefined {
  return clusterRequestIfRead(request)?.user;
}

/** setUserOf sets the user a request acts as (authentication, then impersonation). */
export function setUserOf(request: FastifyRequest, user: UserInfo): void {
  clusterRequestOf(request).user = user;
}

/** clusterUserOf is the cluster user a fogbank token's principal acts as: its email (the admin is `system:admin` in `system:masters`). */
export function clusterUserOf(principal: Principal): UserInfo {
  let user = clusterUsers.get(principal);
  if (user === undefined) {
    const admin = principal.email === ADMIN_EMAIL;
    user = Object.freeze({
      name: admin ? 'system:admin' : principal.email,
      groups: Object.freeze(admin ? ['system:masters', 'system:authenticated'] : [...principal.groups, 'system:authenticated']),
    });
    clusterUsers.set(principal, user);
  }
  return user;
}

// One (frozen) user per principal: made once, not per request.
const clusterUsers = new WeakMap<Principal, UserInfo>();

/** useClusterAuth authenticates every request of the cluster context before it is handled; `tokens` reads the tokens core does not know. */
export function useClusterAuth(app: FastifyInstance, auth: Authenticator, tokens?: TokenAuthenticator): void {
  // Synchronous (a callback hook): every request passes here, and a promise per request adds up.
  app.addHook('onRequest', (request, _reply, done) => {
    // As the apiserver's authenticators run: a client certificate first, then a bearer token.
    const certificate = clientCertificateOf(request.raw.socket);
    if (certificate.kind === 'user') {
      setUserOf(request, {
        name: certificate.name,
        groups: [...certificate.groups, 'system:authenticated'],
        extra: { [CREDENTIAL_ID]: [certificate.credentialId] },
      });
      done();
      return;
    }
    const authorization = bearerOf(request.headers.authorization);
    const identity = auth.identify(authorization);
    if (identity.kind === 'principal') {
      setUserOf(request, clusterUserOf(identity.principal));
      done();
      return;
    }
    const token = identity.kind === 'unknown-token' && tokens !== undefined ? bearerTokenOf(authorization) : undefined;
    if (token !== undefined) {
      tokens!(token).then((user) => {
        if (user === undefined) return done(unauthorized());
        setUserOf(request, user);
        done();
      }, done);
      return;
    }
    const { path } = clusterRequestOf(request);
    // A token nobody issued, or a client certificate that does not verify, is refused even on public paths, as the real server does.
    if (identity.kind === 'unknown-token' || certificate.kind === 'invalid' || !PUBLIC_PATHS.has(path.replace(/\/$/, ''))) done(unauthorized());
    else done();
  });
}

/** bearerOf turns `Basic base64(user:TOKEN)` into `Bearer TOKEN`; other headers pass unchanged. */
export function bearerOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.trim() === '') return undefined;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic === null) return authorization;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? 'Bearer ' : `Bearer ${decoded.slice(colon + 1)}`;
}

/** bearerTokenOf is the token of a `Bearer TOKEN` header (one space-free token, as core's Authenticator reads it). */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}
