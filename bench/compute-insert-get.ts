import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { startPostgres } from '../src/store/postgres-server.fixture.ts';

/**
 * Instance template insert + get throughput: each connection inserts a template (instant
 * Operations) and reads it back, against fogbank (memory, SQLite and PostgreSQL stores) and
 * against a bare node:http server doing the same requests, measured in the same run. Prints
 * req/s and ratios. PostgreSQL is a temporary local server (see postgres-server.fixture.ts), run
 * twice: with synchronous_commit=off, the durability SQLite's synchronous=NORMAL gives (a commit
 * is in the OS before it is acknowledged, fsync comes later), and with PostgreSQL's default
 * (fsync on every commit).
 */
const main = ensureBuilt();
const TOKEN = 'bench';
const PATH = '/compute/v1/projects/p/global/instanceTemplates';

function cycle(prefix: string): autocannon.Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: PATH,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      setupRequest: (request, context) => {
        const name = `${prefix}-${counter++}`;
        (context as Record<string, string>)['name'] = name;
        return {
          ...request,
          body: JSON.stringify({
            name,
            properties: {
              machineType: 'e2-small',
              disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
              networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
            },
          }),
        };
      },
    },
    {
      method: 'GET',
      headers: { authorization: `Bearer ${TOKEN}` },
      setupRequest: (request, context) => ({ ...request, path: `${PATH}/${String((context as Record<string, string>)['name'])}` }),
    },
  ];
}

async function measure(label: string, args: string[]): Promise<{ label: string; result: LoadResult }> {
  const server = await startProcess(args);
  try {
    // A short warm-up so the JIT has seen the hot path.
    await runLoad({ url: server.url, requests: cycle(`warm-${label.length}`), seconds: 2 });
    return { label, result: await runLoad({ url: server.url, requests: cycle('t') }) };
  } finally {
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
const flags = ['--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'];
async function measurePostgres(label: string, settings: Record<string, string>): Promise<{ label: string; result: LoadResult }> {
  const server = await startPostgres(settings);
  try {
    const url = await server.createDatabase('bench');
    return await measure(label, [main, 'start', '--port', '0', '--store', url, ...flags]);
  } finally {
    await server.stop();
  }
}
const rows = [
  await measure('bare node:http', [...BARE_SERVER]),
  await measure('fogbank --ephemeral (memory)', [
    main,
    'start',
    '--port',
    '0',
    '--ephemeral',
    '--admin-token',
    TOKEN,
    '--operations',
    'instant',
    '--log-level',
    'warn',
  ]),
  await measure('fogbank sqlite', [main, 'start', '--port', '0', '--data-dir', dir, ...flags]),
  await measurePostgres('fogbank postgres (sync_commit off)', { synchronous_commit: 'off' }),
  await measurePostgres('fogbank postgres (fsync/commit)', {}),
];
rmSync(dir, { recursive: true, force: true });
printTable('instance template insert + get (16 connections, instant operations)', rows);
const sqlite = rows[2]!.result.requestsPerSecond;
for (const row of rows.slice(3)) console.log(`${row.label}: ${(row.result.requestsPerSecond / sqlite).toFixed(2)}× the SQLite store`);
