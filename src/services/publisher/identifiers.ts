/** The publisher's terms in the spec's neutral spelling and the real one (the mechanism is core/identifiers.ts). */
import { REAL_SCOPE_BASE, type Term, Vocabulary } from '../../core/identifiers.ts';

/** PUBLISHER_API_PATH is the API's base path: the spec's `/publisher/v3` is `/androidpublisher/v3`. */
export const PUBLISHER_API_PATH = new Vocabulary([{ real: '/androidpublisher/v3', spec: '/publisher/v3' }]);

/** PUBLISHER_SCOPE_TERMS is the API's one OAuth scope: the spec's `{scope_base}/publisher`. */
export const PUBLISHER_SCOPE_TERMS: readonly Term[] = [{ real: `${REAL_SCOPE_BASE}/androidpublisher`, spec: `${REAL_SCOPE_BASE}/publisher` }];
