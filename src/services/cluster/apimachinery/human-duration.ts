/**
 * Ages as kubectl and the server's table printers show them (apimachinery `util/duration`
 * HumanDuration): `45s`, `5m3s`, `3h20m`, `2d3h`, `1y30d`.
 */

/** humanDuration renders a duration in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** ageSince is the age of a timestamp at `now`, or `<unknown>` when there is none. */
export function ageSince(timestamp: string | undefined | null, now: number): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(now - at);
}
