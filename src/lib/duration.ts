/** Durations as Go-style command-line flags write them. */

const DURATION_UNITS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };

/** parseDuration reads a Go-style duration of whole units (`1h`, `30m`, `1h30m`, `90s`) in seconds, as kube-apiserver's --event-ttl takes it. */
export function parseDuration(value: string): number | undefined {
  if (!/^(\d+[hms])+$/.test(value)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([hms])/g)) seconds += Number(amount) * (DURATION_UNITS[unit ?? 's'] ?? 1);
  return seconds;
}

/** GO_UNITS are Go's duration units in milliseconds (time.ParseDuration). */
const GO_UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** DurationResult is a parsed duration in milliseconds, or Go's text for why it is not one. */
export type DurationResult = { readonly ms: number } | { readonly error: string };

/**
 * parseGoDuration reads a duration as Go's time.ParseDuration does (`1h`, `30s`, `1h30m`,
 * `1.5h`, `250ms`, `0`), in milliseconds; a refusal carries Go's own message
 * (`time: invalid duration "1x"`, `time: unknown unit "x" in duration "1x"`,
 * `time: missing unit in duration "1"`). Negative durations are Go's but refused here: a clock
 * only moves forward by one.
 */
export function parseGoDuration(text: string): DurationResult {
  const quoted = JSON.stringify(text);
  if (text === '0') return { ms: 0 };
  if (text === '') return { error: `time: invalid duration ${quoted}` };
  if (text.startsWith('-')) return { error: `time: negative duration ${quoted}` };
  let rest = text.startsWith('+') ? text.slice(1) : text;
  if (rest === '') return { error: `time: invalid duration ${quoted}` };
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2] ?? '';
    if (number === null || (whole === '' && fraction === '') || number[0] === '.') return { error: `time: invalid duration ${quoted}` };
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return { error: `time: missing unit in duration ${quoted}` };
    const scale = GO_UNITS[unit];
    if (scale === undefined) return { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    rest = rest.slice(unit.length);
    total += Number(`${whole === '' ? '0' : whole}.${fraction === '' ? '0' : fraction}`) * scale;
    if (!Number.isFinite(total) || total > 9_223_372_036_854) return { error: `time: invalid duration ${quoted}` };
  }
  return { ms: total };
}
