/** How the journal names SMTP exchanges: `SMTP /smtp/DATA` is the method `smtp.DATA` (mailService.requestMethodId). */

/** SMTP_JOURNAL_PATH is the path an SMTP exchange is journaled under, followed by its command. */
export const SMTP_JOURNAL_PATH = '/smtp/';

/** smtpMethodId names a journaled SMTP exchange (`smtp.DATA`, `smtp.AUTH`); undefined for an HTTP request. */
export function smtpMethodId(httpMethod: string, url: string): string | undefined {
  return httpMethod === 'SMTP' && url.startsWith(SMTP_JOURNAL_PATH) ? `smtp.${url.slice(SMTP_JOURNAL_PATH.length)}` : undefined;
}
