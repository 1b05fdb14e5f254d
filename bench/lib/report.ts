import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The bench contract (issue 27): every bench file exports `bench: Bench`, which measures its
 * metrics interleaved with a baseline in the same run and returns them as BenchMetric rows;
 * `runAlone(import.meta, bench)` makes the file runnable alone; `bench/run-all.ts`
 * (`npm run bench`) runs them all and prints one table.
 */

/** Spread is the smallest and largest sample of a metric's rounds. */
export interface Spread {
  min: number;
  max: number;
}

/**
 * BenchMetric is one row of the table. fogbank and baseline are medians over rounds; ratio is
 * fogbank / baseline (null without a baseline); the goal text says which way is good (`≥ 0.8× bare`
 * for throughputs, `≤ 1.5× bare` for times); met is null when the metric has no goal.
 */
export interface BenchMetric {
  metric: string;
  unit: string;
  fogbank: number;
  baseline: number | null;
  baselineLabel: string | null;
  ratio: number | null;
  goal: string;
  met: boolean | null;
  rounds: number;
  spread: Spread;
  /** baselineSpread is the baseline's min and max over rounds, when there is a baseline. */
  baselineSpread?: Spread;
  /** note is a short remark printed under the table (what was measured, a caveat). */
  note?: string;
}

/** BenchOptions are what the runner passes: rounds per metric (≥ 3) and quick (shorter sides, for iterating). */
export interface BenchOptions {
  rounds: number;
  quick: boolean;
}

/** Bench is what every bench file exports as `export const bench: Bench`. */
export type Bench = (options: BenchOptions) => Promise<BenchMetric[]>;

/** Side is one thing measured per round: a label and a measurement returning one sample. */
export interface Side {
  readonly label: string;
  readonly measure: () => Promise<number>;
}

/**
 * interleaved runs the sides A B A B … for `rounds` rounds, so load that changes during the run
 * (the machine is shared) falls on every side alike, and returns each side's samples in the
 * order the sides were given (`const [bare, fogbank] = await interleaved(3, [bareSide, fogbankSide])`).
 */
export async function interleaved<const S extends readonly Side[]>(rounds: number, sides: S): Promise<{ -readonly [K in keyof S]: number[] }> {
  const samples = sides.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, side] of sides.entries()) {
      samples[index]!.push(await side.measure());
    }
  }
  return samples as { -readonly [K in keyof S]: number[] };
}

/** median of a list of numbers (NaN for an empty list). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** spread is the min and max of a list of numbers. */
export function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), max: Math.max(...values) };
}

/** GoalCheck is what a goal is judged on: the medians and their ratio. */
export interface GoalCheck {
  readonly fogbank: number;
  readonly baseline: number | null;
  readonly ratio: number | null;
}

/** Goal is a human text (`≥ 0.8× bare`) and the test that says whether a metric meets it. */
export interface Goal {
  readonly text: string;
  readonly met: (check: GoalCheck) => boolean;
}

/** ratioAtLeast is the goal `≥ N× LABEL` on fogbank / baseline (throughputs). */
export function ratioAtLeast(n: number, label = 'bare'): Goal {
  return { text: `≥ ${n}× ${label}`, met: ({ ratio }) => ratio !== null && ratio >= n };
}

/** ratioAtMost is the goal `≤ N× LABEL` on fogbank / baseline (times, sizes). */
export function ratioAtMost(n: number, label = 'bare'): Goal {
  return { text: `≤ ${n}× ${label}`, met: ({ ratio }) => ratio !== null && ratio <= n };
}

/** atLeast is the goal `≥ N UNIT` on fogbank's own figure. */
export function atLeast(n: number, unit: string): Goal {
  return { text: `≥ ${n.toLocaleString('en-US')} ${unit}`, met: ({ fogbank }) => fogbank >= n };
}

/** atMost is the goal `≤ N UNIT` on fogbank's own figure. */
export function atMost(n: number, unit: string): Goal {
  return { text: `≤ ${n.toLocaleString('en-US')} ${unit}`, met: ({ fogbank }) => fogbank <= n };
}

/** allOf is a goal met when every one of its goals is (texts joined by `and`). */
export function allOf(...goals: readonly Goal[]): Goal {
  return { text: goals.map((g) => g.text).join(' and '), met: (check) => goals.every((g) => g.met(check)) };
}

/** MetricInput is what metricOf builds a BenchMetric from: the raw samples of each side and a goal. */
export interface MetricInput {
  readonly metric: string;
  readonly unit: string;
  readonly fogbank: readonly number[];
  readonly baseline?: { readonly label: string; readonly samples: readonly number[] };
  /** goal is omitted for figures shown for information (met is then null). */
  readonly goal?: Goal;
  readonly note?: string;
}

/** metricOf turns samples into a BenchMetric: medians, ratio fogbank / baseline, spread, goal met. */
export function metricOf(input: MetricInput): BenchMetric {
  const fogbank = median(input.fogbank);
  const baseline = input.baseline === undefined ? null : median(input.baseline.samples);
  const ratio = baseline === null || baseline === 0 ? null : fogbank / baseline;
  return {
    metric: input.metric,
    unit: input.unit,
    fogbank,
    baseline,
    baselineLabel: input.baseline?.label ?? null,
    ratio,
    goal: input.goal?.text ?? '—',
    met: input.goal === undefined ? null : input.goal.met({ fogbank, baseline, ratio }),
    rounds: input.fogbank.length,
    spread: spread(input.fogbank),
    ...(input.baseline === undefined ? {} : { baselineSpread: spread(input.baseline.samples) }),
    ...(input.note === undefined ? {} : { note: input.note }),
  };
}

/** formatNumber prints a figure with about three significant digits. */
export function formatNumber(value: number | null): string {
  if (value === null || Number.isNaN(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function withSpread(value: number | null, range: Spread | undefined, unit: string): string {
  const main = `${formatNumber(value)} ${unit}`;
  if (range === undefined || value === null) return main;
  return `${main} [${formatNumber(range.min)}–${formatNumber(range.max)}]`;
}

/** formatTable renders metrics as one plain-text table: metric, fogbank, baseline, ratio, goal, met. */
export function formatTable(metrics: readonly BenchMetric[]): string {
  const header = ['metric', 'fogbank [min–max]', 'baseline [min–max]', 'ratio', 'goal', 'met'];
  const rows = metrics.map((m) => [
    m.metric,
    withSpread(m.fogbank, m.spread, m.unit),
    m.baseline === null ? '—' : `${withSpread(m.baseline, m.baselineSpread, m.unit)} (${m.baselineLabel ?? 'baseline'})`,
    m.ratio === null ? '—' : `${m.ratio.toFixed(2)}×`,
    m.goal,
    m.met === null ? '—' : m.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const notes = metrics.filter((m) => m.note !== undefined).map((m) => `  ${m.metric}: ${m.note}`);
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ...(notes.length > 0 ? ['notes:', ...notes] : [])].join('\n');
}

/** parseBenchArgs reads `--rounds N`, `--quick` (and ROUNDS / QUICK=1 from the environment); rounds ≥ 3. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions & { json: string | null } {
  let rounds = Number(process.env['ROUNDS'] ?? 3);
  let quick = process.env['QUICK'] === '1';
  let json: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--rounds') rounds = Number(argv[++i]);
    else if (arg.startsWith('--rounds=')) rounds = Number(arg.slice('--rounds='.length));
    else if (arg === '--json') json = argv[++i] ?? null;
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a positive integer, not ${rounds}`);
  return { rounds, quick, json };
}

/**
 * runAlone runs `bench` and prints its table when the file that calls it is the one node was
 * started with (`node --import tsx bench/x.ts [--rounds N] [--quick]`); imported, it does nothing.
 * With `--json FILE` (what bench/run-all.ts passes) it writes the metrics there instead of printing.
 */
export function runAlone(meta: ImportMeta, bench: Bench): void {
  const entry = process.argv[1];
  if (entry === undefined || resolve(entry) !== fileURLToPath(meta.url)) return;
  const { json, ...options } = parseBenchArgs(process.argv.slice(2));
  bench(options).then(
    (metrics) => {
      if (json === null) console.log(formatTable(metrics));
      else writeFileSync(json, JSON.stringify(metrics, null, 2));
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
