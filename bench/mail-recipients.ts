import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFogbank, type RunningFogbank } from '../src/fogbank.ts';
import { startPostgres } from '../src/store/postgres-server.fixture.ts';

/**
 * messages.send to many recipients, in-process against the memory, SQLite and PostgreSQL (a
 * throw-away server from the test fixture; MAIL_BENCH_STORES=memory,sqlite leaves it out) stores: the send's own latency, the
 * longest time any one transaction held the store (timed around `transact`'s function), and the
 * worst latency of a one-recipient send another user makes meanwhile. The recipient limit is
 * lifted (--mail-max-recipients) so that the counts above Gmail's limit can be measured too.
 * Usage: node --import tsx bench/mail-recipients.ts [recipients…] (default 100 1000 3000).
 */
const counts = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const RECIPIENTS = counts.length > 0 ? counts : [100, 1000, 3000];
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

async function measure(label: string, store: string, dataDir: string | undefined, recipients: number): Promise<string> {
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
    const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;
    return `${label.padEnd(10)} ${String(recipients).padStart(5)} recipients: send ${fmt(latency).padStart(10)}, longest store hold ${fmt(Math.max(...held)).padStart(10)}, other writer worst ${fmt(Math.max(...other)).padStart(10)} (${other.length} sends)`;
  } finally {
    await server.close();
  }
}

const stores = (process.env['MAIL_BENCH_STORES'] ?? 'memory,sqlite,postgres').split(',');
const postgres = stores.includes('postgres') ? await startPostgres() : undefined;
const lines: string[] = [];
try {
  for (const recipients of RECIPIENTS) {
    if (stores.includes('memory')) lines.push(await measure('memory', 'memory', undefined, recipients));
    for (const [label, spec] of [
      ['sqlite', 'sqlite'],
      ['postgres', postgres === undefined ? undefined : await postgres.createDatabase(`mail_${recipients}`)],
    ] as const) {
      if (spec === undefined || !stores.includes(label)) continue;
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-recipients-'));
      try {
        lines.push(await measure(label, spec, dir, recipients));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await postgres?.stop();
}
console.log(lines.join('\n'));
