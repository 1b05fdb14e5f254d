import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFogbank, type RunningFogbank } from '../src/fogbank.ts';
import { startPostgres } from '../src/testing/postgres-server.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * messages.send to many recipients, in-process against the memory, SQLite and PostgreSQL (a
 * throw-away server from the test fixture; MAIL_BENCH_STORES=memory,sqlite leaves it out) stores: the send's own latency, the
 * longest time any one transaction held the store (timed around `transact`'s function), and the
 * worst latency of a one-recipient send another user makes meanwhile. The recipient limit is
 * lifted (--mail-max-recipients) so that the counts above Gmail's limit can be measured too.
 * Each figure is the median over rounds; there is no baseline (the figures are fogbank's own).
 * Usage: node --import tsx bench/mail-recipients.ts [--rounds N] [--quick] [recipients…]
 * (default 100 1000 3000; --quick: 100 1000, memory and SQLite).
 */
/** recipientCounts are the positional numbers of the command line (not the values of --rounds or --json). */
function recipientCounts(argv: readonly string[], quick: boolean): number[] {
  const counts = argv.filter((arg, i) => !arg.startsWith('-') && !['--rounds', '--json'].includes(argv[i - 1] ?? '')).map(Number);
  if (counts.length > 0) return counts.filter((n) => n > 0);
  return quick ? [100, 1000] : [100, 1000, 3000];
}
const b64 = (text: string): string => Buffer.from(text).toString('base64url');

/** holdTimes records how long each transaction's function ran (the time it held the store). */
function holdTimes(server: RunningFogbank): number[] {
  const held: number[] = [];
  const store = server.store;
  const transact = store.transact.bind(store);
  store.transact = async (fn) =>
    transact(async (tx) => {
      const started = performance.now();
      try {
        return await fn(tx);
      } finally {
        held.push(performance.now() - started);
      }
    });
  return held;
}

async function send(server: RunningFogbank, token: string, raw: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.url}/gmail/v1/users/me/messages/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ raw: b64(raw) }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`send answered ${response.status}: ${text.slice(0, 200)}`);
  return performance.now() - started;
}

/** Sample is one send to many: its latency, the longest store hold, and the other writer's worst latency meanwhile. */
interface Sample {
  readonly send: number;
  readonly hold: number;
  readonly other: number;
}

async function measure(store: string, dataDir: string | undefined, recipients: number): Promise<Sample> {
  const server = await startFogbank({
    port: 0,
    store,
    ...(dataDir === undefined ? { ephemeral: true } : { dataDir }),
    adminToken: 'admin',
    logLevel: (process.env['MAIL_BENCH_LOG'] ?? 'silent') as 'silent',
    mailMaxRecipients: 100_000,
    tokens: [
      { token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
      { token: 'bob', email: 'bob@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
    ],
  });
  try {
    await send(server, 'bob', 'To: carol@example.com\r\nSubject: warm\r\n\r\nwarm');
    const held = holdTimes(server);
    const to = Array.from({ length: recipients }, (_, i) => `user${i}@example.com`).join(', ');
    let done = false;
    const other: number[] = [];
    const big = send(server, 'ann', `To: ${to}\r\nSubject: many\r\n\r\nhello`).finally(() => (done = true));
    while (!done) other.push(await send(server, 'bob', 'To: carol@example.com\r\nSubject: small\r\n\r\nsmall'));
    const latency = await big;
    return { send: latency, hold: Math.max(...held), other: Math.max(0, ...other) };
  } finally {
    await server.close();
  }
}

/** bench sends to many recipients on each store, once per round. */
export const bench: Bench = async ({ rounds, quick }) => {
  const recipientsList = recipientCounts(process.argv.slice(2), quick);
  const stores = (process.env['MAIL_BENCH_STORES'] ?? (quick ? 'memory,sqlite' : 'memory,sqlite,postgres')).split(',');
  const postgres = stores.includes('postgres') ? await startPostgres() : undefined;
  const metrics: BenchMetric[] = [];
  try {
    for (const recipients of recipientsList) {
      const sides: { label: string; measure: () => Promise<number> }[] = [];
      const samples = new Map<string, Sample[]>();
      const side = (label: string, run: () => Promise<Sample>) =>
        sides.push({
          label,
          measure: async () => {
            const sample = await run();
            samples.set(label, [...(samples.get(label) ?? []), sample]);
            return sample.send;
          },
        });
      if (stores.includes('memory')) side('memory', () => measure('memory', undefined, recipients));
      if (stores.includes('sqlite'))
        side('sqlite', async () => {
          const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-recipients-'));
          try {
            return await measure('sqlite', dir, recipients);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });
      if (postgres !== undefined) {
        let round = 0;
        side('postgres', async () => {
          const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-recipients-'));
          try {
            return await measure(await postgres.createDatabase(`mail_${recipients}_${round++}`), dir, recipients);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });
      }
      await interleaved(rounds, sides);
      for (const [label, runs] of samples) {
        metrics.push(
          metricOf({ metric: `send to ${recipients} recipients, ${label}`, unit: 'ms', fogbank: runs.map((r) => r.send) }),
          metricOf({ metric: `longest store hold, ${recipients} recipients, ${label}`, unit: 'ms', fogbank: runs.map((r) => r.hold) }),
          metricOf({ metric: `other writer's worst send meanwhile, ${recipients} recipients, ${label}`, unit: 'ms', fogbank: runs.map((r) => r.other) }),
        );
      }
    }
  } finally {
    await postgres?.stop();
  }
  return metrics;
};

runAlone(import.meta, bench);
