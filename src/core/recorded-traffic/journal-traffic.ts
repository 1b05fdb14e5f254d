/**
 * The guard's decisions in fogbank's request journal (family `guard`) read back into requests:
 * each entry's `jsonPayload` is the guard's log payload, with the absolute URL, headers and time
 * in its `fogbankRequest`. The families' own requests (to fogbank's APIs) are no traffic a policy
 * decided and are not read.
 */
import type { JournalRecord } from '../journal.ts';
import { guardRequestOf, isRecord, type RecordedRequest, type RecordedTraffic, type SkippedRequest } from './recorded-request.ts';

/**
 * journalTraffic reads the guard's records among `records` (oldest first) at or after `since`.
 * With `policy` (a policy's short name, as the log names it), decisions another guard made under
 * another policy are skipped: the journal holds every guard's decisions.
 */
export function journalTraffic(records: Iterable<JournalRecord>, since: number | undefined, policy?: string): RecordedTraffic {
  const requests: RecordedRequest[] = [];
  const skipped: SkippedRequest[] = [];
  let i = 0;
  for (const record of records) {
    if (record.family !== 'guard' || (since !== undefined && record.time < since)) continue;
    const at = `journal[${i++}]`;
    const decidedBy =
      isRecord(record.jsonPayload) && isRecord(record.jsonPayload['enforcedSecurityPolicy']) ? record.jsonPayload['enforcedSecurityPolicy']['name'] : undefined;
    if (policy !== undefined && typeof decidedBy === 'string' && decidedBy !== policy) {
      skipped.push({ at, reason: `decided by another guard's policy (${decidedBy})` });
      continue;
    }
    const read = guardRequestOf(record.jsonPayload, record.httpMethod, undefined, record.time);
    if (typeof read === 'string') skipped.push({ at, reason: read });
    else requests.push({ at, ...read });
  }
  return { requests, skipped };
}
