/** rfc3339 renders epoch milliseconds the way compute does: millisecond precision with an explicit offset. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '-00:00');
}
