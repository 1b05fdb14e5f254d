/**
 * smtp.gmail.com's replies, as sourced in shared/reference/smtp-and-distribution.md (A1, A2):
 * each a code and its lines, every line carrying the enhanced status code, a continuation line
 * that starts with a URL two spaces after it, and ` <sid> - gsmtp` (the session's id) ending
 * the last line of every reply but the AUTH and STARTTLS successes. The dialect
 * (gmail-dialect.ts) writes them; the listener's handlers throw them (SmtpReply).
 */

/** SMTP_HOST is the name smtp.gmail.com greets with and answers EHLO with. */
export const SMTP_HOST = 'smtp.gmail.com';

/** MAX_MESSAGE_BYTES is smtp.gmail.com's SIZE: 35,882,577 bytes, room for a 25 MB attachment's base64. */
export const MAX_MESSAGE_BYTES = 35_882_577;

/** GmailReply is one reply: its code and its lines without the code (each starting with the enhanced status code, or none for 2xx/3xx greetings). */
export interface GmailReply {
  readonly code: number;
  readonly lines: readonly string[];
}

/** SmtpReply is a reply thrown from a handler: smtp-server sends `responseCode` and `message`, which the dialect splits back into the lines. */
export class SmtpReply extends Error {
  override readonly name = 'SmtpReply';
  readonly responseCode: number;
  constructor(reply: GmailReply) {
    super(reply.lines.join('\n'));
    this.responseCode = reply.code;
  }
}

/** gsmtp ends a reply's last line with the session's id, as every Gmail error and most answers do. */
export function gsmtp(reply: GmailReply, sid: string): GmailReply {
  const lines = [...reply.lines];
  lines[lines.length - 1] = `${lines[lines.length - 1]!} ${sid} - gsmtp`;
  return { code: reply.code, lines };
}

const reply = (code: number, ...lines: string[]): GmailReply => ({ code, lines });

/** GMAIL is every reply the listener gives, by situation (the sid is added by gsmtp unless noted). */
export const GMAIL = {
  greeting: reply(220, `${SMTP_HOST} ESMTP`),
  /** The EHLO answer's first line, before the extensions. */
  ehlo: (clientIp: string): string => `${SMTP_HOST} at your service, [${clientIp}]`,
  /** No sid. */
  startTls: reply(220, '2.0.0 Ready to start TLS'),
  /** No sid. */
  authenticated: reply(235, '2.7.0 Accepted'),
  mailFromOk: reply(250, '2.1.0 OK'),
  rcptToOk: reply(250, '2.1.5 OK'),
  goAhead: reply(354, 'Go ahead'),
  /** The end of data: two spaces, then the unix time. */
  accepted: (unixSeconds: number): GmailReply => reply(250, `2.0.0 OK  ${unixSeconds}`),
  flushed: reply(250, '2.1.5 Flushed'),
  ok: reply(250, '2.0.0 OK'),
  help: reply(214, '2.0.0 https://www.google.com/search?btnI&q=RFC+5321'),
  closing: reply(221, '2.0.0 closing connection'),
  badCredentials: reply(
    535,
    '5.7.8 Username and Password not accepted. For more information, go to',
    '5.7.8  https://support.google.com/mail/?p=BadCredentials',
  ),
  cannotDecode: reply(501, '5.5.2 Cannot Decode response'),
  mustStartTls: reply(
    530,
    '5.7.0 Must issue a STARTTLS command first. For more information, go to',
    '5.7.0  https://support.google.com/a/answer/3221692 and review RFC 3207',
    '5.7.0 specifications.',
  ),
  authRequired: reply(530, '5.7.0 Authentication Required. For more information, go to', '5.7.0  https://support.google.com/mail/?p=WantAuthError'),
  noIdentityChanges: reply(503, '5.7.0 No identity changes permitted'),
  unknownMechanism: reply(504, '5.7.4 Unrecognized authentication type'),
  tooManyRecipients: reply(
    452,
    "4.5.3 Your message has too many recipients. For more information regarding Google's sending limits, visit",
    '4.5.3  https://support.google.com/mail/answer/6592',
  ),
  tooLarge: reply(
    552,
    "5.3.4 Your message exceeded Google's message size limits. Please visit",
    '5.3.4  https://support.google.com/mail/?p=MaxSizeError to view our size',
    '5.3.4 guidelines.',
  ),
  invalidRecipient: (address: string): GmailReply =>
    reply(
      553,
      `5.1.3 The recipient address <${address}> is not a valid RFC 5321 address. For more information, go to`,
      '5.1.3  https://support.google.com/mail/answer/6596',
    ),
  invalidSender: (address: string): GmailReply => reply(553, `5.1.7 The sender address <${address}> is not a valid RFC 5321 address.`),
  syntaxError: reply(
    555,
    '5.5.2 Syntax error, cannot decode response. For more information, go to',
    '5.5.2  https://support.google.com/a/answer/3221692 and review RFC 5321',
    '5.5.2 specifications.',
  ),
  heloInvalid: reply(501, '5.5.4 HELO/EHLO argument is invalid'),
  unrecognized: reply(502, '5.5.1 Unrecognized command.'),
  badSequence: reply(503, '5.5.1 Bad sequence of commands'),
  tryLater: reply(421, '4.7.0 Try again later, closing connection. For more information, go to', '4.7.0  https://support.google.com/a/answer/3221692'),
  timeout: reply(421, '4.4.2 Timeout - closing connection.'),
  unavailable: reply(421, '4.3.0 Service not available, closing transmission channel'),
  temporaryProblem: reply(451, '4.3.0 Mail server temporarily rejected message.'),
  /**
   * The messages in flight hold the listener's whole buffer (--smtp-buffer-limit): try again
   * later. Gmail's wording for this is not documented; this is RFC 5321's 452 with RFC 3463's
   * X.3.1 "Mail system full", in Postfix's words for a full queue.
   */
  insufficientStorage: reply(452, '4.3.1 Insufficient system storage'),
  /** A message fogbank cannot store as sent (what the Gmail API answers 400 to), with the API's words. */
  rejected: (why: string): GmailReply => reply(554, `5.6.0 Message rejected: ${why}`),
  bareLf: reply(554, '5.6.0 Message rejected: a line ends in a bare LF; SMTP lines end in CRLF (RFC 5321 section 2.3.8).'),
  nul: reply(554, '5.6.0 Message rejected: the message contains a NUL byte (RFC 5322 section 2.3).'),
} as const;

/**
 * XOAUTH2_CHALLENGE is the 334 challenge Gmail sends for a bad token or one without the mail
 * scope: base64 of `{"status":"400","schemes":"Bearer","scope":"https://mail.google.com/"}`.
 */
export const XOAUTH2_CHALLENGE = { status: '400', schemes: 'Bearer', scope: 'https://mail.google.com/' } as const;
