/**
 * What `POST /_fogbank/clock` may ask, read as a pure function with the messages the client gets:
 * exactly one of `{"advance": "1h"}`, `{"set": "2026-01-01T00:00:00Z"}`, `{"freeze": true|false}`.
 */
import { parseGoDuration } from '../../lib/duration.ts';
import { badRequest, type ControlError } from './errors.ts';

/** ClockChangeRequest is one validated change of the clock. */
export type ClockChangeRequest = { readonly advance: number } | { readonly set: number } | { readonly freeze: boolean };

/** RFC3339 is a date-time as RFC 3339 writes it (`T` or space, seconds, optional fraction, `Z` or an offset). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** parseRfc3339 reads an RFC 3339 time in milliseconds since the epoch; undefined when it is not one or names no real instant. */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const ms = Date.parse(text.replace(/[ t]/, 'T').replace('z', 'Z'));
  if (Number.isNaN(ms)) return undefined;
  // Date.parse would roll 2026-02-30 into March: the calendar fields must be the ones written.
  const check = new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!));
  if (check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day! || hour! > 23 || minute! > 59 || second! > 59) return undefined;
  return ms;
}

/** CLOCK_FIELDS are the changes the clock accepts. */
const CLOCK_FIELDS = ['advance', 'set', 'freeze'];

/** readClockChange validates a clock request body, or returns the 400 that says what is wrong. */
export function readClockChange(body: unknown): ClockChangeRequest | ControlError {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return badRequest('The body must be a JSON object with one of "advance", "set" or "freeze".');
  const keys = Object.keys(body);
  const unknown = keys.find((key) => !CLOCK_FIELDS.includes(key));
  if (unknown !== undefined) return badRequest(`Unknown field ${JSON.stringify(unknown)}: the clock takes one of "advance", "set" or "freeze".`);
  if (keys.length !== 1)
    return badRequest(
      keys.length === 0
        ? 'The body names no change: give one of "advance", "set" or "freeze".'
        : 'Give one change at a time: one of "advance", "set" or "freeze".',
    );
  const record = body as Record<string, unknown>;
  if ('advance' in record) {
    const value = record['advance'];
    if (typeof value !== 'string') return badRequest('"advance" must be a duration string such as "1h", "30s" or "1h30m".');
    const parsed = parseGoDuration(value);
    if ('error' in parsed) return badRequest(`"advance": ${parsed.error} (write it as "1h", "30s", "1h30m" or "250ms")`);
    return { advance: parsed.ms };
  }
  if ('set' in record) {
    const value = record['set'];
    const ms = typeof value === 'string' ? parseRfc3339(value) : undefined;
    if (ms === undefined) return badRequest(`"set": ${JSON.stringify(value)} is not an RFC 3339 time such as "2026-01-01T00:00:00Z".`);
    return { set: ms };
  }
  const freeze = record['freeze'];
  if (typeof freeze !== 'boolean') return badRequest('"freeze" must be true or false.');
  return { freeze };
}
