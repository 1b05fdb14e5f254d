/** API_BASE is the API base path in the real spelling. */
export const API_BASE = '/androidpublisher/v3';

/** BASE_FORMS are the metadata, upload and resumable-upload addresses, each under API_BASE. */
export const BASE_FORMS = [API_BASE, `/upload${API_BASE}`, `/resumable/upload${API_BASE}`];
