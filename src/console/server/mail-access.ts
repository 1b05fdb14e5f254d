/**
 * Which mailboxes the console shows a principal: the ones the Gmail API would let its token read
 * (`messages.list`, `messages.get`): a token with one of the API's read scopes (the mail family's
 * own table, MAIL_SCOPES.read) reads its own mailbox, or any with the all-mailboxes permission.
 * A token without such a scope sees no mail here, as the API answers it 403.
 */
import type { Principal } from '../../core/auth.ts';
import { ALL_MAILBOXES_PERMISSION, MAIL_SCOPES } from '../../services/mail/public.ts';
import { scopeList } from './scope-names.ts';

/** MailReach is where a principal may read mail: nowhere (no read scope), its own mailbox, or every mailbox. */
export type MailReach = 'none' | 'own' | 'all';

/** mailReach is where the principal's token lets it read mail through the Gmail API. */
export function mailReach(principal: Principal): MailReach {
  if (!principal.hasAnyScope(MAIL_SCOPES.read)) return 'none';
  return principal.hasPermission(ALL_MAILBOXES_PERMISSION) ? 'all' : 'own';
}

/** mayReadMailbox says whether the principal may read `mailbox` (lower-case), as the API decides it. */
export function mayReadMailbox(principal: Principal, mailbox: string): boolean {
  const reach = mailReach(principal);
  return reach === 'all' || (reach === 'own' && mailbox === principal.email.toLowerCase());
}

/** mailRefusal is the console's text for a mailbox the principal may not read. */
export function mailRefusal(principal: Principal, mailbox: string): string {
  return mailReach(principal) === 'none'
    ? `${principal.email} may not read mail: its token carries none of the Gmail API's read scopes (${scopeList(MAIL_SCOPES.read)}).`
    : `${principal.email} may not read the mailbox ${mailbox}.`;
}
