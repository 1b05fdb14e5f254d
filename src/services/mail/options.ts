/** The mail family's settings (core/family-options.ts): where delivered mail is also relayed. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';
import type { SmtpStartOptions } from './smtp/smtp-options.ts';

const SMTP_URL = /^smtps?:\/\/[^/:]+(:\d+)?\/?$/;

/** MAIL_RELAY_OPTION is `--mail-relay` (start() option `mailRelay`): every delivered message is forwarded there too. */
export const MAIL_RELAY_OPTION: FamilyOption<string> = {
  key: 'mailRelay',
  flag: 'mail-relay',
  value: 'smtp://host:port',
  default: 'none',
  help: 'also deliver every sent mail message to this SMTP server (e.g. Mailpit)',
  parse(text) {
    if (!SMTP_URL.test(text)) throw new OptionError(`--mail-relay must be smtp://host:port or smtps://host:port, not '${text}'`);
    return text;
  },
  accepts: (value): value is string => typeof value === 'string' && SMTP_URL.test(value),
};

/** MAIL_MAX_RECIPIENTS_OPTION is `--mail-max-recipients` (start() option `mailMaxRecipients`): more To, Cc and Bcc on one sent message is refused with 400. */
export const MAIL_MAX_RECIPIENTS_OPTION: FamilyOption<number> = {
  key: 'mailMaxRecipients',
  flag: 'mail-max-recipients',
  value: 'N',
  default: '100, as the Gmail API',
  help: 'most recipients (To, Cc and Bcc together) of one sent mail message; more is refused with 400',
  parse(text) {
    const count = Number(text);
    if (!/^\d+$/.test(text) || count < 1 || count > 100_000) throw new OptionError(`--mail-max-recipients must be a number from 1 to 100000, not '${text}'`);
    return count;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 100_000,
};

/** MailStartOptions are the mail family's start() options (the SMTP listener's among them). */
export interface MailStartOptions extends SmtpStartOptions {
  /** Forward every delivered mail message to this SMTP server (`smtp://host:port`). */
  readonly mailRelay?: string;
  /** The most recipients a sent mail message may have (default 100, the Gmail API's). */
  readonly mailMaxRecipients?: number;
}
