/**
 * Where `POST /_fogbank/securityPolicies:replay` takes its requests from (issue 39), read as a
 * pure function with the messages the client gets: inline (`requests`, the default), the request
 * journal's guard decisions (`"source": "journal"`, optionally `since`), or a recording given as
 * text (`"source": "guard-log"` or `"har"` with `text`; a HAR's requests come from `sourceIp`,
 * default 127.0.0.1, as a HAR holds no client address). The rest of the body is compute's (the
 * policy, what is proposed) and goes on as it is, the recorded requests in its `requests`.
 */
import type { JournalRecord } from '../../core/journal.ts';
import { parseGuardLog } from '../../core/recorded-traffic/guard-log.ts';
import { parseHar } from '../../core/recorded-traffic/har.ts';
import { journalTraffic } from '../../core/recorded-traffic/journal-traffic.ts';
import { type RecordedTraffic, RecordedTrafficError, type SkippedRequest } from '../../core/recorded-traffic/recorded-request.ts';
import { parseRfc3339 } from './clock-body.ts';
import { badRequest, type ControlError } from './errors.ts';

/** SOURCE_FIELDS are the members this family reads; the others are the evaluation's. */
const SOURCE_FIELDS = ['source', 'since', 'text', 'sourceIp'];
const SOURCES = ['requests', 'journal', 'guard-log', 'har'];

/** ReplaySource is the body for the evaluation and where each of its requests was read (for the answer). */
export interface ReplaySource {
  readonly body: Record<string, unknown>;
  /** at names where each request was read (`line 3`), undefined for inline requests. */
  readonly at: readonly string[] | undefined;
  /** kind is where they came from: `requests`, `journal`, `guard-log`, `har`. */
  readonly kind: string;
  readonly skipped: readonly SkippedRequest[];
}

/** readReplaySource reads the source members and the requests they name (the journal's records oldest first), or returns its 400. */
export function readReplaySource(body: unknown, journal: () => Iterable<JournalRecord>): ReplaySource | ControlError {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return badRequest(
      'The body must be a JSON object: {"policy": NAME, "proposed": {…} or "rules": [{"priority", "rule"}], "requests": [{…}] or "source": …}.',
    );
  const given = body as Record<string, unknown>;
  const source = given['source'] ?? 'requests';
  if (typeof source !== 'string' || !SOURCES.includes(source))
    return badRequest(`"source" must be one of ${SOURCES.join(', ')}, not ${JSON.stringify(source)}.`);
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) if (!SOURCE_FIELDS.includes(key)) rest[key] = value;
  const allowed =
    source === 'journal' ? ['source', 'since'] : source === 'har' ? ['source', 'text', 'sourceIp'] : source === 'guard-log' ? ['source', 'text'] : ['source'];
  const stray = SOURCE_FIELDS.find((key) => given[key] !== undefined && !allowed.includes(key));
  if (stray !== undefined) return badRequest(`"${stray}" does not go with "source": "${source}".`);
  if (source === 'requests') return { body: rest, at: undefined, kind: source, skipped: [] };
  if (rest['requests'] !== undefined) return badRequest(`"requests" and "source": "${source}" both give the requests: give one.`);
  let traffic: RecordedTraffic;
  if (source === 'journal') {
    const since = given['since'];
    let ms: number | undefined;
    if (since !== undefined) {
      ms = typeof since === 'string' ? parseRfc3339(since) : undefined;
      if (ms === undefined) return badRequest(`"since": ${JSON.stringify(since)} is not an RFC 3339 time such as "2026-01-01T00:00:00Z".`);
    }
    // Only the decisions made under the policy replayed (the journal holds every guard's); the name is checked by the evaluation.
    const name = typeof rest['policy'] === 'string' ? rest['policy'].slice(rest['policy'].lastIndexOf('/') + 1) : undefined;
    traffic = journalTraffic(journal(), ms, name);
  } else {
    const text = given['text'];
    if (typeof text !== 'string') return badRequest(`"text" is required with "source": "${source}": the file's contents.`);
    const sourceIp = given['sourceIp'] ?? '127.0.0.1';
    if (typeof sourceIp !== 'string') return badRequest('"sourceIp" must be the IP address the HAR\'s requests came from, such as "203.0.113.9".');
    try {
      traffic = source === 'har' ? parseHar(text, sourceIp) : parseGuardLog(text);
    } catch (error) {
      if (error instanceof RecordedTrafficError) return badRequest(error.message);
      throw error;
    }
  }
  return {
    body: { ...rest, requests: traffic.requests.map((each) => ({ ...each.request, ...(each.time === undefined ? {} : { time: each.time }) })) },
    at: traffic.requests.map((each) => each.at),
    kind: source,
    skipped: traffic.skipped,
  };
}
