/**
 * The query of `GET /_fogbank/requests` (`family`, `method`, `status`, `since`, `limit`, `bodies`), read as a
 * pure function with the messages the client gets.
 */
import type { JournalFilter } from '../../core/journal-view.ts';
import { parseRfc3339 } from './clock-body.ts';
import { badRequest, type ControlError } from './errors.ts';

/** REQUEST_QUERY_FIELDS are the parameters the journal query takes. */
const REQUEST_QUERY_FIELDS = ['family', 'method', 'status', 'since', 'limit', 'bodies'];

/** readRequestsQuery validates the journal query (`families` are the names it may filter on), or returns its 400. */
export function readRequestsQuery(query: Readonly<Record<string, unknown>>, families: readonly string[]): JournalFilter | ControlError {
  const filter: { -readonly [K in keyof JournalFilter]: JournalFilter[K] } = {};
  for (const [name, raw] of Object.entries(query)) {
    if (!REQUEST_QUERY_FIELDS.includes(name))
      return badRequest(`Unknown parameter ${JSON.stringify(name)}: the journal takes family, method, status, since, limit and bodies.`);
    if (typeof raw !== 'string') return badRequest(`Parameter ${JSON.stringify(name)} is given more than once.`);
    if (raw === '') continue;
    switch (name) {
      case 'family':
        if (!families.includes(raw)) return badRequest(`Unknown family ${JSON.stringify(raw)}: one of ${families.join(', ')}.`);
        filter.family = raw;
        break;
      case 'method':
        filter.method = raw;
        break;
      case 'status':
        if (/^[1-5]\d\d$/.test(raw)) filter.status = Number(raw);
        else if (/^[1-5]xx$/i.test(raw)) filter.status = raw.toLowerCase();
        else return badRequest(`"status": ${JSON.stringify(raw)} is not an HTTP status (404) or class (4xx).`);
        break;
      case 'since': {
        const ms = parseRfc3339(raw);
        if (ms === undefined) return badRequest(`"since": ${JSON.stringify(raw)} is not an RFC 3339 time such as "2026-01-01T00:00:00Z".`);
        filter.since = ms;
        break;
      }
      case 'bodies':
        if (raw !== 'true' && raw !== 'false') return badRequest(`"bodies": ${JSON.stringify(raw)} is not true or false.`);
        filter.bodies = raw === 'true';
        break;
      default: {
        if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) return badRequest(`"limit": ${JSON.stringify(raw)} is not a whole number from 1.`);
        filter.limit = Number(raw);
      }
    }
  }
  return filter;
}
