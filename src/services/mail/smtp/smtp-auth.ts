/**
 * SMTP AUTH against fogbank's tokens, as the Gmail API checks them (access.ts): the admin token
 * and the tokens file's grants, read by core's Authenticator. A token is the password of AUTH
 * PLAIN and LOGIN (an app password) and the bearer token of XOAUTH2; it must hold
 * `https://mail.google.com/`, the one scope smtp.gmail.com takes (`gmail.send` does not do for
 * SMTP), and the user named must be the token's own mailbox, unless the token may act on every
 * mailbox (the admin token; a grant with gmail.users.allMailboxes), as `userId` in the API.
 */
import type { Authenticator } from '../../../core/auth.ts';
import { ALL_MAILBOXES_PERMISSION } from '../access.ts';
import { FULL_MAILBOX_SCOPE } from '../identifiers.ts';
import { isDeliverableAddress } from '../mime/addresses.ts';

/** SmtpUser is an authenticated SMTP session: whose mailbox it sends from, and the token (for the journal's principal). */
export interface SmtpUser {
  readonly mailbox: string;
  readonly token: string;
}

/** authenticateSmtp is the session's user for `username` and `token`, or undefined when Gmail would refuse them (535-5.7.8). */
export function authenticateSmtp(auth: Authenticator, username: string, token: string): SmtpUser | undefined {
  if (token === '' || /\s/.test(token)) return undefined;
  const identity = auth.identify(`Bearer ${token}`);
  if (identity.kind !== 'principal') return undefined;
  const { principal } = identity;
  if (!principal.hasAnyScope([FULL_MAILBOX_SCOPE])) return undefined;
  const mailbox = username.trim().toLowerCase();
  if (!isDeliverableAddress(mailbox)) return undefined;
  if (mailbox !== principal.email.toLowerCase() && !principal.hasPermission(ALL_MAILBOXES_PERMISSION)) return undefined;
  return { mailbox, token };
}
