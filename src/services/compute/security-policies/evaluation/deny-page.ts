/**
 * The page Cloud Armor answers a denied request with (real output, the same template for every
 * status): a tiny HTML document with no trailing newline. A proxy sends it with the deny status.
 */

/** STATUS_TEXTS are the reason phrases of the statuses a policy can answer with. */
const STATUS_TEXTS: Readonly<Record<number, string>> = { 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 502: 'Bad Gateway' };

/** DENY_PAGE_CONTENT_TYPE is the Content-Type sent with the page (the reference marks it unverified). */
export const DENY_PAGE_CONTENT_TYPE = 'text/html; charset=UTF-8';

/** denyPage is the body Cloud Armor sends with `status`. */
export function denyPage(status: number): string {
  const text = STATUS_TEXTS[status] ?? '';
  return `<!doctype html><meta charset="utf-8"><meta name=viewport content="width=device-width, initial-scale=1"><title>${status}</title>${status} ${text}`.trimEnd();
}
