/**
 * What `POST /_fogbank/requests` takes: decisions made outside the server, by `fogbank guard`,
 * journaled beside the requests the families answered (family `guard`), read as a pure function
 * with the messages the client gets. `{"entries": [{"httpMethod", "url", "status", "latencyMs",
 * "jsonPayload"?}]}`; `jsonPayload` is the decision in Cloud Armor's request-log shape.
 */
import type { JournalRecord } from '../../core/journal.ts';
import { badRequest, type ControlError } from './errors.ts';

/** MAX_ENTRIES bounds one append (the guard sends what it decided in the last moment, in batches). */
export const MAX_ENTRIES = 1000;

/** ENTRY_FIELDS are the members an entry may have. */
const ENTRY_FIELDS = ['httpMethod', 'url', 'status', 'latencyMs', 'jsonPayload'];

/** readJournalAppend validates the body into records stamped with `now` and family `guard`, or returns its 400. */
export function readJournalAppend(body: unknown, now: number): JournalRecord[] | ControlError {
  if (!isObject(body) || Object.keys(body).join() !== 'entries')
    return badRequest('The body must be {"entries": [{"httpMethod", "url", "status", "latencyMs", "jsonPayload"}]}.');
  const entries = body['entries'];
  if (!Array.isArray(entries)) return badRequest('"entries" must be a list.');
  if (entries.length > MAX_ENTRIES) return badRequest(`"entries" holds ${entries.length} entries; at most ${MAX_ENTRIES} are taken at once.`);
  const records: JournalRecord[] = [];
  for (const [i, entry] of entries.entries()) {
    const at = `entries[${i}]`;
    if (!isObject(entry)) return badRequest(`"${at}" must be an object.`);
    const unknown = Object.keys(entry).find((key) => !ENTRY_FIELDS.includes(key));
    if (unknown !== undefined) return badRequest(`"${at}" has unknown member ${JSON.stringify(unknown)}: an entry takes ${ENTRY_FIELDS.join(', ')}.`);
    const { httpMethod, url, status, latencyMs, jsonPayload } = entry;
    if (typeof httpMethod !== 'string' || !/^[A-Z][A-Z0-9_-]{0,31}$/.test(httpMethod))
      return badRequest(`"${at}.httpMethod" must be an HTTP method such as "GET".`);
    if (typeof url !== 'string' || !url.startsWith('/') || url.length > 8192)
      return badRequest(`"${at}.url" must be a path and query starting with "/" (at most 8192 characters).`);
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
      return badRequest(`"${at}.status" must be an HTTP status from 100 to 599.`);
    if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0)
      return badRequest(`"${at}.latencyMs" must be a number of milliseconds from 0.`);
    if (jsonPayload !== undefined && !isObject(jsonPayload)) return badRequest(`"${at}.jsonPayload" must be an object.`);
    records.push({
      time: now,
      family: 'guard',
      httpMethod,
      url,
      routedUrl: url,
      authorization: undefined,
      status,
      latencyMs,
      fault: null,
      ...(jsonPayload === undefined ? {} : { jsonPayload }),
    });
  }
  return records;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
