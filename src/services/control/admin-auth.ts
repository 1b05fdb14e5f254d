/**
 * Only the admin token drives the test controls: no token or one nobody issued is 401, another
 * principal's token 403.
 */
import type { FastifyRequest } from 'fastify';
import { ADMIN_EMAIL, type Authenticator } from '../../core/auth.ts';
import { ControlError } from './errors.ts';

/** authenticateAdmin throws unless the request carries the admin token (`Authorization: Bearer TOKEN`). */
export function authenticateAdmin(request: FastifyRequest, auth: Authenticator): void {
  const identity = auth.identify(request.headers.authorization);
  if (identity.kind === 'anonymous') throw new ControlError(401, 'The admin API needs the admin token: send Authorization: Bearer <admin token>.');
  if (identity.kind === 'unknown-token') throw new ControlError(401, 'The token is not one this server issued.');
  if (identity.principal.email !== ADMIN_EMAIL) throw new ControlError(403, `${identity.principal.email} may not use the admin API: it takes the admin token.`);
}
