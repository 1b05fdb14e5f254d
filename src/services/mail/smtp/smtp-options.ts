/**
 * The SMTP submission listener's settings (mail family options, core/family-options.ts). The
 * listener is off unless a port is given: loading the SMTP server library costs 75–90 ms of
 * start-up on the project machine (measured: `import('smtp-server')` in a bare node process),
 * more than the whole margin start-up has against a bare node:http process (bench/startup.ts).
 */
import { type FamilyOption, OptionError } from '../../../core/family-options.ts';
import { parseByteSize } from '../../../lib/byte-size.ts';
import { MAX_MESSAGE_BYTES } from './gmail-replies.ts';

const portOption = (key: string, flag: string, help: string): FamilyOption<number> => ({
  key,
  flag,
  value: 'PORT',
  default: 'off',
  help,
  parse(text) {
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65_535) throw new OptionError(`--${flag} must be a port number from 0 to 65535, not '${text}'`);
    return port;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 65_535,
});

/** SMTP_PORT_OPTION is `--smtp-port` (start() option `smtpPort`): SMTP submission with STARTTLS, as smtp.gmail.com's 587; 0 picks a free port. */
export const SMTP_PORT_OPTION = portOption(
  'smtpPort',
  'smtp-port',
  'accept SMTP submission (STARTTLS, as smtp.gmail.com:587) into the mail mailboxes on this port; 0 picks a free one (the banner shows it)',
);

/** SMTPS_PORT_OPTION is `--smtps-port` (start() option `smtpsPort`): SMTP submission over implicit TLS, as smtp.gmail.com's 465. */
export const SMTPS_PORT_OPTION = portOption(
  'smtpsPort',
  'smtps-port',
  'accept SMTP submission over implicit TLS (as smtp.gmail.com:465) on this port; 0 picks a free one',
);

/** SmtpAuthMode is how SMTP submission authenticates: fogbank's tokens (as Gmail's), or nobody (a catch-all on loopback). */
export type SmtpAuthMode = 'token' | 'none';

/** SMTP_AUTH_OPTION is `--smtp-auth` (start() option `smtpAuth`). */
export const SMTP_AUTH_OPTION: FamilyOption<SmtpAuthMode> = {
  key: 'smtpAuth',
  flag: 'smtp-auth',
  value: 'token|none',
  default: 'token',
  help: "token: AUTH PLAIN/LOGIN/XOAUTH2 with a fogbank token holding https://mail.google.com/, as smtp.gmail.com; none: accept anyone on loopback and deliver from the envelope sender's mailbox (a catch-all, as Mailpit)",
  parse(text) {
    if (text !== 'token' && text !== 'none') throw new OptionError(`--smtp-auth must be token or none, not '${text}'`);
    return text;
  },
  accepts: (value): value is SmtpAuthMode => value === 'token' || value === 'none',
};

/** DEFAULT_SMTP_BUFFER_LIMIT is 128 MiB: three messages of the full SIZE at once, or about 13,000 of 10 KB. */
export const DEFAULT_SMTP_BUFFER_LIMIT = 128 * 1024 ** 2;

/**
 * SMTP_BUFFER_LIMIT_OPTION is `--smtp-buffer-limit` (start() option `smtpBufferLimit`, in bytes):
 * the most message bytes every connection together holds in memory (buffer-budget.ts). It must
 * hold one message of the full SIZE, or such a message could never be taken.
 */
export const SMTP_BUFFER_LIMIT_OPTION: FamilyOption<number> = {
  key: 'smtpBufferLimit',
  flag: 'smtp-buffer-limit',
  value: 'BYTES|NK|NM|NG',
  default: '128M',
  help: 'most bytes of SMTP messages held in memory at once across all connections; a message past it is refused with 452 4.3.1 (try again later)',
  parse(text) {
    const bytes = parseByteSize(text);
    if (bytes === undefined || bytes < MAX_MESSAGE_BYTES)
      throw new OptionError(
        `--smtp-buffer-limit must be a number of bytes (optionally with K, M or G) of at least one message of SIZE ${MAX_MESSAGE_BYTES} bytes (35M), not '${text}'`,
      );
    return bytes;
  },
  accepts: (value): value is number => Number.isSafeInteger(value) && (value as number) >= MAX_MESSAGE_BYTES,
};

/** SMTP_OPTIONS are the listener's options, in help order. */
export const SMTP_OPTIONS = [SMTP_PORT_OPTION, SMTPS_PORT_OPTION, SMTP_AUTH_OPTION, SMTP_BUFFER_LIMIT_OPTION] as const;

/** SmtpStartOptions are the listener's start() options. */
export interface SmtpStartOptions {
  /** Listen for SMTP submission (STARTTLS) on this port; 0 picks a free one. Off when absent. */
  readonly smtpPort?: number;
  /** Listen for SMTP submission over implicit TLS on this port; 0 picks a free one. Off when absent. */
  readonly smtpsPort?: number;
  /** `token` (default): fogbank's tokens, as Gmail's; `none`: unauthenticated, loopback only. */
  readonly smtpAuth?: SmtpAuthMode;
  /** The most bytes of SMTP messages held in memory at once, across connections (default 128 MiB, at least SIZE). */
  readonly smtpBufferLimit?: number;
}
