// Rendering a timestamp is a measurable share of an Operation's cost (three per Operation, and
// most of them the same millisecond), so recent results are kept in a small direct-mapped table.
const SLOTS = 64;
const cachedMs = new Float64Array(SLOTS).fill(Number.NaN);
const cachedText: string[] = new Array<string>(SLOTS).fill('');

/** SERVICE_TIME_ZONE is where compute's timestamps are written: the real service uses Pacific time. */
export const SERVICE_TIME_ZONE = 'America/Los_Angeles';

// The zone's rules (daylight saving time included) come from the ICU data Node ships. Made on
// first use: building the formatter loads the zone data (~10 ms, measured at start-up).
let offsetFormat: Intl.DateTimeFormat | undefined;
const HOUR_MS = 3_600_000;
// The offset only changes on the hour, so it is kept per UTC hour (resources created at other
// times are rendered next to new ones, so more than the current hour is kept, within a bound).
const offsetByHour = new Map<number, number>();
const MAX_HOURS_KEPT = 4096;

/** pacificOffsetMinutes is the zone's offset from UTC at an instant, in minutes (-480 in winter, -420 in summer). */
export function pacificOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  let offset = offsetByHour.get(hour);
  if (offset === undefined) {
    offsetFormat ??= new Intl.DateTimeFormat('en-US', { timeZone: SERVICE_TIME_ZONE, timeZoneName: 'longOffset' });
    const name = offsetFormat.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
    offset = match === null ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
    if (offsetByHour.size >= MAX_HOURS_KEPT) offsetByHour.clear();
    offsetByHour.set(hour, offset);
  }
  return offset;
}

/**
 * rfc3339 renders epoch milliseconds the way compute does: local Pacific time with millisecond
 * precision and the offset in force at that instant (`2026-11-22T14:27:27.460-08:00`, `-07:00`
 * in daylight time).
 */
export function rfc3339(ms: number): string {
  const slot = Math.abs(Math.trunc(ms)) % SLOTS;
  if (cachedMs[slot] === ms) return cachedText[slot]!;
  const offset = pacificOffsetMinutes(ms);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, -1);
  const magnitude = Math.abs(offset);
  const text = `${local}${offset < 0 ? '-' : '+'}${String(Math.trunc(magnitude / 60)).padStart(2, '0')}:${String(magnitude % 60).padStart(2, '0')}`;
  cachedMs[slot] = ms;
  cachedText[slot] = text;
  return text;
}
