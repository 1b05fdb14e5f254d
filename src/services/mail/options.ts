/** The mail family's settings (core/family-options.ts): where delivered mail is also relayed. */
import { type FamilyOption, OptionError } from '../../core/family-options.ts';

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

/** MailStartOptions are the mail family's start() options. */
export interface MailStartOptions {
  /** Forward every delivered mail message to this SMTP server (`smtp://host:port`). */
  readonly mailRelay?: string;
}
