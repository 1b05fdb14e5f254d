/**
 * CronJob schedules as robfig/cron v3's ParseStandard reads them (what the CronJob controller
 * uses): five fields — minute, hour, day of month, month, day of week — with `*`, `?`, ranges,
 * lists, steps and month/day names, or a descriptor (`@yearly`, `@annually`, `@monthly`,
 * `@weekly`, `@daily`, `@midnight`, `@hourly`, `@every <duration>`). Times are UTC (the
 * controller's zone; `spec.timeZone` other than UTC is not simulated). When both day fields are
 * restricted, a day matching either runs, as in cron.
 */

/** CronSchedule answers the next activation strictly after a time. */
export interface CronSchedule {
  next(after: number): number | undefined;
}

/** CronParseError is robfig/cron's refusal, in its words. */
export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

const MONTHS: Readonly<Record<string, number>> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Readonly<Record<string, number>> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

function value(text: string, bounds: Bounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) throw new CronParseError(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** field reads one field into the set of values it allows, and whether it was `*` or `?`. */
function field(text: string, bounds: Bounds): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    let start: number;
    let end: number;
    if (range === '*' || range === '?') {
      [start, end] = [bounds.min, bounds.max];
      if (stepText === undefined) star = true;
    } else if (range.includes('-')) {
      const [low = '', high = ''] = range.split('-');
      [start, end] = [value(low, bounds), value(high, bounds)];
    } else {
      start = value(range, bounds);
      end = stepText === undefined ? start : bounds.max;
    }
    const step = stepText === undefined ? 1 : value(stepText, { min: 1, max: 1000 });
    if (start < bounds.min) throw new CronParseError(`beginning of range (${start}) below minimum (${bounds.min}): ${part}`);
    if (end > bounds.max) throw new CronParseError(`end of range (${end}) above maximum (${bounds.max}): ${part}`);
    if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
    if (step === 0) throw new CronParseError(`step of range should be a positive number: ${part}`);
    for (let n = start; n <= end; n += step) values.add(n);
  }
  return { values, star };
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** parseCronSchedule reads a schedule, or throws CronParseError with robfig/cron's message. */
export function parseCronSchedule(text: string, parseEvery: (duration: string) => number | undefined): CronSchedule {
  const trimmed = text.trim();
  if (trimmed.startsWith('@every ')) {
    const every = parseEvery(trimmed.slice('@every '.length).trim());
    if (every === undefined || every <= 0) throw new CronParseError(`failed to parse duration ${trimmed}`);
    // ConstantDelaySchedule: rounded to whole seconds, at least one.
    const step = Math.max(1000, Math.floor(every / 1000) * 1000);
    return { next: (after) => Math.floor(after / 1000) * 1000 + step };
  }
  const expanded = DESCRIPTORS[trimmed] ?? trimmed;
  if (expanded.startsWith('@')) throw new CronParseError(`unrecognized descriptor: ${trimmed}`);
  const fields = expanded.split(/\s+/);
  if (fields.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minuteText = '', hourText = '', domText = '', monthText = '', dowText = ''] = fields;
  const minutes = field(minuteText, { min: 0, max: 59 }).values;
  const hours = field(hourText, { min: 0, max: 23 }).values;
  const dom = field(domText, { min: 1, max: 31 });
  const months = field(monthText, { min: 1, max: 12, names: MONTHS }).values;
  const dowField = field(dowText, { min: 0, max: 7, names: DAYS });
  const dow = new Set([...dowField.values].map((day) => day % 7));
  const dayMatches = (date: Date): boolean => {
    const byDom = dom.values.has(date.getUTCDate());
    const byDow = dow.has(date.getUTCDay());
    return dom.star || dowField.star ? byDom && byDow : byDom || byDow;
  };
  return {
    next(after) {
      // Minute by minute would be slow for yearly schedules: skip whole days and hours that cannot match.
      const date = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
      const limit = after + 5 * 366 * 86_400_000;
      while (date.getTime() <= limit) {
        if (!months.has(date.getUTCMonth() + 1) || !dayMatches(date)) {
          date.setUTCHours(0, 0, 0, 0);
          date.setUTCDate(date.getUTCDate() + 1);
          continue;
        }
        if (!hours.has(date.getUTCHours())) {
          date.setUTCMinutes(0, 0, 0);
          date.setUTCHours(date.getUTCHours() + 1);
          continue;
        }
        if (minutes.has(date.getUTCMinutes())) return date.getTime();
        date.setUTCMinutes(date.getUTCMinutes() + 1);
      }
      return undefined;
    },
  };
}
