import { invalidArgument, type MailError } from './errors.ts';

/**
 * MAX_RECIPIENTS_PER_MESSAGE is Gmail's limit on the recipients of one message sent through the
 * Gmail API: 100 addresses in To, Cc and Bcc together. Source: Google Workspace Admin Help,
 * "Gmail sending limits in Google Workspace" (support.google.com/a/answer/166852), row
 * "Recipients per message sent via SMTP (by POP or IMAP users) or the Gmail API — 100"; the web
 * interface's own limit (2,000, 500 external) does not apply to the API. `--mail-max-recipients`
 * changes it.
 */
export const MAX_RECIPIENTS_PER_MESSAGE = 100;

/**
 * tooManyRecipients is the 400 for a send beyond the limit. The API's exact body for it is not
 * published; the message starts with the text Google documents for the limit ("You exceeded the
 * maximum recipients.") and says which limit, under reason invalidArgument as Gmail's other
 * recipient errors (`Invalid To header`, `Recipient address required`).
 */
export function tooManyRecipients(count: number, limit: number): MailError {
  return invalidArgument(
    `You exceeded the maximum recipients. A message sent through the Gmail API may have at most ${limit} recipients (To, Cc and Bcc together); this one has ${count}.`,
  );
}

/** checkRecipientCount refuses a message to more than `limit` distinct recipients. */
export function checkRecipientCount(count: number, limit: number): void {
  if (count > limit) throw tooManyRecipients(count, limit);
}
