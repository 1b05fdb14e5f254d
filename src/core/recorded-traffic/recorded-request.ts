/**
 * Recorded traffic (issue 39): requests read back from what saw them — the guard's log lines,
 * fogbank's request journal, a browser's HAR file — in the form the admin API's what-if
 * evaluation takes them (`{method, url, headers, sourceIp, regionCode, body}`), each with where it
 * was read and when it was sent, so `securityPolicies:replay` can evaluate them again in order on
 * a simulated clock. Parsed in core because both the command line (a file) and the admin API (a
 * body, or the journal) read them, and neither may import the family that evaluates them.
 */

/** RecordedRequest is one request read back. */
export interface RecordedRequest {
  /** at names where it was read, in messages and answers: `line 3`, `entries[2]`, `journal[5]`. */
  readonly at: string;
  /** time is when it was sent (ms since the epoch), when the recording says. */
  readonly time?: number;
  /** request is the what-if API's request form. */
  readonly request: Readonly<Record<string, unknown>>;
}

/** SkippedRequest is a recorded exchange replay cannot evaluate, and why. */
export interface SkippedRequest {
  readonly at: string;
  readonly reason: string;
}

/** RecordedTraffic is what a recording holds: the requests to replay, in recorded order, and those set aside. */
export interface RecordedTraffic {
  readonly requests: RecordedRequest[];
  readonly skipped: SkippedRequest[];
}

/** RecordedTrafficError is a recording that does not parse: the message names the source and where (`har: entries[3].request.url is not a URL`). */
export class RecordedTrafficError extends Error {
  override readonly name = 'RecordedTrafficError';
}

/** isRecord says whether a value is a JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** timeOf reads an RFC 3339 timestamp (ms since the epoch), undefined when it is none. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** isHttpUrl says whether the text is an absolute http or https URL. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** GUARD_OWN_ANSWERS are the guard's `statusDetails` for requests it answered itself: the policy never decided them. */
const GUARD_OWN_ANSWERS = new Set(['request_unreadable_by_guard', 'request_body_timeout', 'no_security_policy', 'guard_internal_error', 'guard_queue_full']);

/**
 * guardRequestOf reads one guard decision (a log line's or a journal entry's `jsonPayload`, with the
 * method, URL and time the line or entry gives) back into a request; a string when it cannot be
 * replayed (why), undefined when the payload is not a guard decision.
 */
export function guardRequestOf(payload: unknown, method: string, url: string | undefined, time: number | undefined): Omit<RecordedRequest, 'at'> | string {
  if (!isRecord(payload)) return 'no jsonPayload: not a decision of the guard';
  const details = payload['statusDetails'];
  if (typeof details === 'string' && GUARD_OWN_ANSWERS.has(details)) return `the guard answered it itself (${details}): no policy decided it`;
  if (payload['enforcedSecurityPolicy'] === undefined) return 'no security policy decided it (none was attached)';
  const recorded = isRecord(payload['fogbankRequest']) ? payload['fogbankRequest'] : undefined;
  const absolute = isHttpUrl(recorded?.['url']) ? recorded['url'] : url;
  if (!isHttpUrl(absolute)) return 'the recording has no absolute URL for it (written before the guard recorded one)';
  const sourceIp = payload['remoteIp'];
  if (typeof sourceIp !== 'string') return 'the recording has no remoteIp for it';
  const headers = isRecord(recorded?.['headers']) ? recorded['headers'] : {};
  const info = isRecord(payload['securityPolicyRequestData']) ? payload['securityPolicyRequestData']['remoteIpInfo'] : undefined;
  const regionCode = isRecord(info) && typeof info['regionCode'] === 'string' ? info['regionCode'] : undefined;
  const asn = isRecord(info) && typeof info['asn'] === 'number' ? info['asn'] : undefined;
  const at = timeOf(recorded?.['time']) ?? time;
  return {
    ...(at === undefined ? {} : { time: at }),
    request: { method, url: absolute, headers, sourceIp, ...(regionCode === undefined ? {} : { regionCode }), ...(asn === undefined ? {} : { asn }) },
  };
}

/**
 * namingRecorded rewrites a refusal that names a replayed request by its place (`"requests[3].url": …`,
 * as the evaluation phrases it) to name where the request was read (`line 7: "url": …`).
 */
export function namingRecorded(message: string, at: readonly string[]): string {
  const match = /^"requests\[(\d+)\](?:\.([^"]*))?"(.*)$/s.exec(message);
  const where = match === null ? undefined : at[Number(match[1])];
  if (match === null || where === undefined) return message;
  return `${where}: ${match[2] === undefined ? 'the request' : `"${match[2]}"`}${match[3]}`;
}
