import type { FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../../core/auth.ts';
import { REAL_SCOPE_BASE } from '../../core/identifiers.ts';
import { FULL_MAILBOX_SCOPE } from './identifiers.ts';
import { delegationDenied, insufficientScopes, invalidCredential, missingCredential } from './errors.ts';

const scope = (name: string): string => `${REAL_SCOPE_BASE}/${name}`;
const FULL = FULL_MAILBOX_SCOPE;
const MODIFY = scope('gmail.modify');
const COMPOSE = scope('gmail.compose');
const ADDON_COMPOSE = scope('gmail.addons.current.action.compose');
const READONLY = scope('gmail.readonly');
const METADATA = scope('gmail.metadata');
const LABELS = scope('gmail.labels');
const SEND = scope('gmail.send');

/**
 * MAIL_SCOPES says which scopes each kind of method accepts (any one suffices), from the
 * discovery document and spec D: sending also takes `gmail.send`, draft writes do not; only
 * the full-mailbox scope deletes a message permanently. The tokens file may name them in
 * either spelling (its identifiers.ts maps `mail.*` to `gmail.*`).
 */
export const MAIL_SCOPES = {
  send: [FULL, MODIFY, COMPOSE, ADDON_COMPOSE, SEND],
  draftWrite: [FULL, MODIFY, COMPOSE, ADDON_COMPOSE],
  draftRead: [FULL, MODIFY, COMPOSE, READONLY],
  read: [FULL, MODIFY, READONLY, METADATA],
  modify: [FULL, MODIFY],
  deleteForever: [FULL],
  labelsRead: [FULL, MODIFY, READONLY, METADATA, LABELS],
  labelsWrite: [FULL, MODIFY, LABELS],
  profile: [FULL, MODIFY, COMPOSE, READONLY, METADATA],
} as const satisfies Record<string, readonly string[]>;

/** ALL_MAILBOXES_PERMISSION lets a token act on every mailbox (the admin token holds it; a tokens-file grant may too). */
export const ALL_MAILBOXES_PERMISSION = 'gmail.users.allMailboxes';

/** MailAccess is what one request may do: whose mailbox, as whom. */
export interface MailAccess {
  /** The mailbox the request acts on (the canonical, lower-case address). */
  readonly mailbox: string;
  readonly principal: Principal;
}

/**
 * authorizeMail authenticates the request, checks that its token carries one of `scopes` (the
 * ErrorInfo names `rpcMethod`), and resolves `userId` (`me` is the caller) to a mailbox the
 * caller may use: its own, or any with ALL_MAILBOXES_PERMISSION.
 */
export function authorizeMail(auth: Authenticator, request: FastifyRequest, scopes: readonly string[], rpcMethod: string): MailAccess {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const accessToken = typeof query['access_token'] === 'string' ? query['access_token'] : undefined;
  const identity = auth.identify(request.headers.authorization, accessToken);
  if (identity.kind === 'anonymous') throw missingCredential();
  if (identity.kind === 'unknown-token') throw invalidCredential();
  const principal = identity.principal;
  if (!principal.hasAnyScope(scopes)) throw insufficientScopes(rpcMethod);
  const userId = (request.params as Record<string, string>)['userId'] ?? 'me';
  const mailbox = userId === 'me' ? principal.email.toLowerCase() : userId.toLowerCase();
  if (mailbox !== principal.email.toLowerCase() && !principal.hasPermission(ALL_MAILBOXES_PERMISSION)) throw delegationDenied(userId);
  return { mailbox, principal };
}
