/** MAIL_API_BASE is the API's base path in the real spelling. */
export const MAIL_API_BASE = '/gmail/v1';

/** MAIL_PREFIXES are the metadata, upload and resumable-upload addresses, in the real spelling. */
export const MAIL_PREFIXES = { metadata: MAIL_API_BASE, upload: `/upload${MAIL_API_BASE}`, resumable: `/resumable/upload${MAIL_API_BASE}` };
