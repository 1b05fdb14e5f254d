import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { startFogbank, type RunningFogbank } from '../src/fogbank.ts';
import { atLeast, type Bench, type BenchMetric, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * Messages per second over SMTP submission (issue 40): nodemailer's pool of 16 connections
 * sending 10 KB messages (AUTH PLAIN with a fogbank token, one recipient each) into an in-process
 * fogbank, against the same messages sent with the Gmail API's messages.send by 16 concurrent
 * HTTP clients, interleaved in the same run, on the memory store and on SQLite. Both plain text
 * on loopback (Mailpit's figure is plain SMTP too). The goal is Mailpit's own published ingest
 * rate: "between 100–200 emails per second over SMTP" (Mailpit docs, "Email storage";
 * shared/reference/mail-and-publisher-api.md), so at least 200/s.
 * Usage: node --import tsx bench/mail-smtp.ts [--rounds N] [--quick]
 */
const CONNECTIONS = 16;
const MESSAGE_BYTES = 10 * 1024;
const TOKEN = 'bench-smtp';
const MAILPIT_PUBLISHED = 'Mailpit publishes 100–200 messages/s over SMTP (docs, "Email storage")';

function message(index: number): string {
  const head = `From: ann@example.com\r\nTo: bob@example.com\r\nSubject: bench ${index}\r\nMessage-ID: <bench-${index}-${performance.now()}@example.com>\r\n\r\n`;
  const line = `${'x'.repeat(76)}\r\n`;
  return head + line.repeat(Math.ceil((MESSAGE_BYTES - head.length) / line.length));
}

async function start(store: 'memory' | 'sqlite', dataDir: string | undefined): Promise<RunningFogbank> {
  return startFogbank({
    port: 0,
    store,
    ...(dataDir === undefined ? { ephemeral: true } : { dataDir }),
    tls: false,
    adminToken: 'admin',
    tokens: [{ token: TOKEN, email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }],
    smtpPort: 0,
    journalSize: 0,
  });
}

/** overSmtp sends `count` messages through a pool of CONNECTIONS and answers messages per second. */
async function overSmtp(server: RunningFogbank, count: number): Promise<number> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: server.listeners[0]!.port,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
    auth: { user: 'ann@example.com', pass: TOKEN },
  });
  try {
    // The pool's connections open (greeting, EHLO, AUTH) before the clock starts.
    await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, i) => transport.sendMail({ envelope: { from: 'ann@example.com', to: ['bob@example.com'] }, raw: message(-i) })),
    );
    const started = performance.now();
    await Promise.all(
      Array.from({ length: count }, (_, i) => transport.sendMail({ envelope: { from: 'ann@example.com', to: ['bob@example.com'] }, raw: message(i) })),
    );
    return count / ((performance.now() - started) / 1000);
  } finally {
    transport.close();
  }
}

/** overApi sends `count` messages with messages.send from CONNECTIONS concurrent clients and answers messages per second. */
async function overApi(server: RunningFogbank, count: number): Promise<number> {
  const one = async (i: number): Promise<void> => {
    const response = await fetch(`${server.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ raw: Buffer.from(message(i)).toString('base64url') }),
    });
    await response.text();
    if (response.status !== 200) throw new Error(`messages.send answered ${response.status}`);
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => one(-i)));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) await one(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** bench measures both doors on each store, interleaved, a fresh server per sample. */
export const bench: Bench = async ({ rounds, quick }) => {
  const count = quick ? 400 : 1600;
  const metrics: BenchMetric[] = [];
  for (const store of ['memory', 'sqlite'] as const) {
    const sample = (door: (server: RunningFogbank, count: number) => Promise<number>) => async () => {
      const dir = store === 'sqlite' ? mkdtempSync(join(tmpdir(), 'fogbank-bench-smtp-')) : undefined;
      const server = await start(store, dir);
      try {
        return await door(server, count);
      } finally {
        await server.close();
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      }
    };
    const [api, smtp] = await interleaved(rounds, [
      { label: 'messages.send', measure: sample(overApi) },
      { label: 'SMTP', measure: sample(overSmtp) },
    ]);
    metrics.push(
      metricOf({
        metric: `SMTP submission, ${CONNECTIONS} connections, 10 KB, ${store}`,
        unit: 'messages/s',
        fogbank: smtp,
        baseline: { label: 'messages.send', samples: api },
        goal: atLeast(200, 'messages/s'),
        note: `${MAILPIT_PUBLISHED}; the baseline is the Gmail API's messages.send, ${CONNECTIONS} concurrent clients, in the same run`,
      }),
    );
  }
  return metrics;
};

runAlone(import.meta, bench);
