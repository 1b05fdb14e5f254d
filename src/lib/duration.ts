/** Durations as Go-style command-line flags write them. */

const DURATION_UNITS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };

/** parseDuration reads a Go-style duration of whole units (`1h`, `30m`, `1h30m`, `90s`) in seconds, as kube-apiserver's --event-ttl takes it. */
export function parseDuration(value: string): number | undefined {
  if (!/^(\d+[hms])+$/.test(value)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([hms])/g)) seconds += Number(amount) * (DURATION_UNITS[unit ?? 's'] ?? 1);
  return seconds;
}
