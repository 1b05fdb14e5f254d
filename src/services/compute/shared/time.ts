// Rendering a timestamp is a measurable share of an Operation's cost (three per Operation, and
// most of them the same millisecond), so recent results are kept in a small direct-mapped table.
const SLOTS = 64;
const cachedMs = new Float64Array(SLOTS).fill(Number.NaN);
const cachedText: string[] = new Array<string>(SLOTS).fill('');

/** rfc3339 renders epoch milliseconds the way compute does: millisecond precision with an explicit offset. */
export function rfc3339(ms: number): string {
  const slot = Math.abs(Math.trunc(ms)) % SLOTS;
  if (cachedMs[slot] === ms) return cachedText[slot]!;
  const text = new Date(ms).toISOString().replace('Z', '-00:00');
  cachedMs[slot] = ms;
  cachedText[slot] = text;
  return text;
}
