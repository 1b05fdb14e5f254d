import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * messages.send of a 10 KB message (JSON `raw`, To + Cc, so each send stores three copies)
 * against fogbank (memory and SQLite stores) and a bare node:http server that parses the same
 * JSON body, measured in the same run. Goal: ≥ 1,000 msgs/s and ≥ 0.1× bare.
 */
const main = ensureBuilt();
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

async function measure(label: string, args: string[]): Promise<{ label: string; result: LoadResult }> {
  const server = await startProcess(args);
  try {
    await runLoad({ url: server.url, requests, seconds: 2 });
    return { label, result: await runLoad({ url: server.url, requests }) };
  } finally {
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-mail-'));
const rows = [
  await measure('bare node:http', [...BARE_SERVER]),
  await measure('fogbank --ephemeral (memory)', [main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']),
  await measure('fogbank sqlite', [main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']),
];
rmSync(dir, { recursive: true, force: true });
printTable(`messages.send, ${Buffer.byteLength(tenKilobyteMessage())}-byte message to 2 recipients (16 connections)`, rows);
