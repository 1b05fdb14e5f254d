/** Mail's terms in the spec's neutral spelling and the real one (the mechanism is core/identifiers.ts). */
import { REAL_SCOPE_BASE, type Term, Vocabulary } from '../../core/identifiers.ts';

/** MAIL_API_PATH is the API's base path: the spec's `/mail/v1` is Gmail's `/gmail/v1`. */
export const MAIL_API_PATH = new Vocabulary([{ real: '/gmail/v1', spec: '/mail/v1' }]);

/** FULL_MAILBOX_SCOPE is the mail API's full-access scope, which has no `{scope_base}` form. */
export const FULL_MAILBOX_SCOPE = 'https://mail.google.com/';

/** MAIL_SCOPE_TERMS are the mail API's OAuth scopes: the spec's `{scope_base}/mail.send` is `…/auth/gmail.send`. */
export const MAIL_SCOPE_TERMS: readonly Term[] = ['modify', 'compose', 'addons.current.action.compose', 'send', 'readonly', 'labels', 'metadata', 'insert'].map(
  (name) => ({ real: `${REAL_SCOPE_BASE}/gmail.${name}`, spec: `${REAL_SCOPE_BASE}/mail.${name}` }),
);
