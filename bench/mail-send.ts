import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { allOf, atLeast, type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * messages.send of a 10 KB message (JSON `raw`, To + Cc, so each send stores the sender's copy
 * and two recipients' copies) on 16 connections against fogbank (SQLite, the default, and the
 * memory store) and a bare node:http server that parses the same JSON body, interleaved round by
 * round. Goal (issue 27): SQLite ≥ 2,000 msg/s and ≥ 0.3× bare.
 */
const TOKEN = 'bench';

function tenKilobyteMessage(): string {
  const head = 'From: admin@fogbank.local\r\nTo: bob@example.com\r\nCc: carol@example.com\r\nSubject: bench\r\n\r\n';
  const line = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n';
  return head + line.repeat(Math.ceil((10 * 1024 - head.length) / line.length));
}

const body = JSON.stringify({ raw: Buffer.from(tenKilobyteMessage()).toString('base64url') });
const requests: autocannon.Request[] = [
  { method: 'POST', path: '/gmail/v1/users/me/messages/send', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body },
];

/** bench measures sends per second: bare, fogbank SQLite, fogbank memory, a fresh process (and data directory) each round. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const side = (label: string, args: () => { args: string[]; cleanup?: () => void }) => ({
    label,
    measure: async () => {
      const { args: argv, cleanup } = args();
      const server = await startProcess(argv);
      try {
        await runLoad({ url: server.url, requests, seconds: 2 });
        const result = await runLoad({ url: server.url, requests, seconds });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        return result.requestsPerSecond;
      } finally {
        await server.stop();
        cleanup?.();
      }
    },
  });
  const fogbank = (extra: string[]) => [main, 'start', '--port', '0', '--admin-token', TOKEN, '--log-level', 'warn', ...extra];
  const [bare, sqlite, memory] = await interleaved(rounds, [
    side('bare node:http', () => ({ args: [...BARE_SERVER] })),
    side('fogbank sqlite', () => {
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-mail-'));
      return { args: fogbank(['--data-dir', dir]), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    }),
    side('fogbank memory', () => ({ args: fogbank(['--ephemeral']) })),
  ]);
  const baseline = { label: 'bare node:http', samples: bare };
  const note = `${Buffer.byteLength(tenKilobyteMessage())}-byte message to 2 recipients, 16 connections, ${seconds} s a side after 2 s of warm-up`;
  return [
    metricOf({
      metric: 'messages.send 10 KB (SQLite)',
      unit: 'msg/s',
      fogbank: sqlite,
      baseline,
      goal: allOf(atLeast(2000, 'msg/s'), ratioAtLeast(0.3)),
      note,
    }),
    metricOf({ metric: 'messages.send 10 KB (memory)', unit: 'msg/s', fogbank: memory, baseline }),
  ];
};

runAlone(import.meta, bench);
