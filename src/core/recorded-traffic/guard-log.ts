/**
 * The guard's stdout read back (docs/guard.md): one Cloud Logging entry a line, in the shape of
 * Cloud Armor's request log, with fogbank's `jsonPayload.fogbankRequest` (time, absolute URL,
 * headers). The guard's first line (`guard listening on …`) and blank lines are passed over; any
 * other line that is not such an entry is an error naming its line.
 */
import { jsonProblemOf } from '../json-body.ts';
import { guardRequestOf, isRecord, type RecordedRequest, type RecordedTraffic, RecordedTrafficError, type SkippedRequest, timeOf } from './recorded-request.ts';

/** parseGuardLog reads the lines of a guard's log, or throws a RecordedTrafficError naming the line. */
export function parseGuardLog(text: string): RecordedTraffic {
  const requests: RecordedRequest[] = [];
  const skipped: SkippedRequest[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    const at = `line ${i + 1}`;
    if (line === '' || /^guard listening on \S+$/.test(line)) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(raw);
    } catch (error) {
      const problem = jsonProblemOf(raw);
      throw new RecordedTrafficError(
        problem === undefined
          ? `guard-log: ${at} is not JSON (${(error as Error).message})`
          : `guard-log: ${at}, column ${problem.column} is not JSON: ${problem.message}`,
      );
    }
    if (!isRecord(entry)) throw new RecordedTrafficError(`guard-log: ${at} is not a log entry (a JSON object with httpRequest and jsonPayload)`);
    const http = entry['httpRequest'];
    if (!isRecord(http)) throw new RecordedTrafficError(`guard-log: ${at} has no httpRequest: not a line of the guard's log`);
    const method = http['requestMethod'];
    if (typeof method !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(method))
      throw new RecordedTrafficError(`guard-log: ${at}: httpRequest.requestMethod is not an HTTP method`);
    const url = http['requestUrl'];
    if (typeof url !== 'string') throw new RecordedTrafficError(`guard-log: ${at}: httpRequest.requestUrl is missing`);
    const timestamp = entry['timestamp'];
    const time = timeOf(timestamp);
    if (timestamp !== undefined && time === undefined)
      throw new RecordedTrafficError(`guard-log: ${at}: timestamp ${JSON.stringify(timestamp)} is not an RFC 3339 time`);
    const read = guardRequestOf(entry['jsonPayload'], method, url, time);
    if (typeof read === 'string') {
      skipped.push({ at, reason: read });
      continue;
    }
    const request = read.request;
    // A line written before the guard recorded headers still carries the user agent.
    const userAgent = http['userAgent'];
    const headers = request['headers'] as Record<string, unknown>;
    const withAgent = typeof userAgent === 'string' && Object.keys(headers).length === 0 ? { ...request, headers: { 'user-agent': userAgent } } : request;
    requests.push({ at, ...(read.time === undefined ? {} : { time: read.time }), request: withAgent });
  }
  return { requests, skipped };
}
