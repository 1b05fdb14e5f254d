import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SCOPE_BASE, type Authenticator, type Principal } from '../../../core/auth.ts';
import { insufficientScopes, invalidCredential, missingCredential, permissionDenied } from './errors.ts';

/** COMPUTE_WRITE_SCOPES are the scopes any compute mutation accepts (either suffices). */
export const COMPUTE_WRITE_SCOPES: readonly string[] = [`${SCOPE_BASE}/cloud-platform`, `${SCOPE_BASE}/compute`];

/** COMPUTE_READ_SCOPES are the scopes any compute read accepts. */
export const COMPUTE_READ_SCOPES: readonly string[] = [...COMPUTE_WRITE_SCOPES, `${SCOPE_BASE}/compute.readonly`, `${SCOPE_BASE}/cloud-platform.read-only`];

const principals = new WeakMap<FastifyRequest, Principal>();

/** useComputeAuth authenticates every request of the compute context before it is handled. */
export function useComputeAuth(app: FastifyInstance, auth: Authenticator): void {
  // A callback hook: a promise per request adds up.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      authenticateCompute(request, auth);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

/** authenticateCompute identifies the caller (bearer token or `access_token`), or throws the real 401s. */
export function authenticateCompute(request: FastifyRequest, auth: Authenticator): void {
  const query = request.query as Record<string, unknown> | undefined;
  const accessToken = typeof query?.['access_token'] === 'string' ? query['access_token'] : undefined;
  const identity = auth.identify(request.headers.authorization, accessToken);
  if (identity.kind === 'anonymous') throw missingCredential();
  if (identity.kind === 'unknown-token') throw invalidCredential();
  principals.set(request, identity.principal);
}

/** AccessCheck is what one method needs: read or write scopes, and one IAM permission on a resource. */
export interface AccessCheck {
  readonly write: boolean;
  readonly permission: string;
  /** The resource the permission is checked on, e.g. `projects/p/global/instanceTemplates/t`. */
  readonly resource: string;
}

/** authorize returns the caller after checking scopes and the permission; throws the real 403s. */
export function authorize(request: FastifyRequest, check: AccessCheck): Principal {
  const principal = principals.get(request);
  if (principal === undefined) throw missingCredential();
  if (!principal.hasAnyScope(check.write ? COMPUTE_WRITE_SCOPES : COMPUTE_READ_SCOPES)) throw insufficientScopes();
  // An empty permission means the resource is public to every authenticated caller.
  if (check.permission !== '') requirePermission(principal, check.permission, check.resource);
  return principal;
}

/** requirePermission checks one more (field-level) permission for an already authorized caller. */
export function requirePermission(principal: Principal, permission: string, resource: string): void {
  if (!principal.hasPermission(permission)) throw permissionDenied(permission, resource);
}
