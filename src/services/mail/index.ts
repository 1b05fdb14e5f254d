import { MAIL_API_PATH, MAIL_SCOPE_TERMS } from './identifiers.ts';
import { versionlessPrefix } from '../../core/path-aliases.ts';
import { googleClientBanner } from '../../core/google-client-banner.ts';
import { googleEnvelopeProblem } from '../../core/google-error-envelope.ts';
import type { ServiceDefinition } from '../../core/service.ts';
import { renderMailError } from './error-serializer.ts';
import { MAIL_MAX_RECIPIENTS_OPTION, MAIL_RELAY_OPTION } from './options.ts';
import { optionValue } from '../../core/family-options.ts';
import { smtpMethodId } from './smtp/smtp-method-id.ts';
import { SMTP_OPTIONS, SMTP_PORT_OPTION, SMTPS_PORT_OPTION } from './smtp/smtp-options.ts';
import { MAIL_API_BASE, MAIL_PREFIXES } from './prefixes.ts';

/** MAIL_ALIASES are the same addresses in the spec's spelling (`/mail/v1`, identifiers.ts). */
const MAIL_ALIASES = Object.values(MAIL_PREFIXES).map((canonical) => ({
  alias: canonical.replace(MAIL_API_BASE, MAIL_API_PATH.spell(MAIL_API_BASE, 'spec')),
  canonical,
}));

/** mailService is the mail API family (spec D, the Gmail API): send, drafts, mailboxes per recipient, over every upload protocol. */
export const mailService: ServiceDefinition = {
  name: 'mail',
  // Every version of the API's addresses, in both spellings: `/gmail/v2/…` is the mail API's to refuse.
  pathPrefixes: [...Object.values(MAIL_PREFIXES), ...[...Object.values(MAIL_PREFIXES), ...MAIL_ALIASES.map((alias) => alias.alias)].map(versionlessPrefix)],
  pathAliases: MAIL_ALIASES,
  storeFileFolders: ['mail/raw/'],
  scopes: MAIL_SCOPE_TERMS,
  options: [MAIL_RELAY_OPTION, MAIL_MAX_RECIPIENTS_OPTION, ...SMTP_OPTIONS],
  renderError: renderMailError,
  faultEffects: ['dropAfterBytes'],
  errorBodyProblem: (status: number, body: unknown) => googleEnvelopeProblem(status, body, true),
  banner: (site) => {
    const section = googleClientBanner(site, 'mail (Gmail API)', '/gmail/v1', 'gmail');
    const smtp = (site.listeners ?? []).filter((listener) => listener.family === 'mail');
    return smtp.length === 0 ? section : { ...section, apis: [...section.apis, ...smtp.map((listener) => ({ name: listener.name, baseUrl: listener.url }))] };
  },
  requestMethodId: smtpMethodId,
  // SMTP submission (smtp/): loaded only when a port is asked for.
  async listen(context) {
    if (optionValue(SMTP_PORT_OPTION, context.options) === undefined && optionValue(SMTPS_PORT_OPTION, context.options) === undefined) return undefined;
    return (await import('./smtp/smtp-listener.ts')).openSmtpListeners(context);
  },
  discovery: async () => [(await import('./discovery.ts')).MAIL_DISCOVERY],
  async register(app, context) {
    return (await import('./register.ts')).registerMail(app, context);
  },
};
