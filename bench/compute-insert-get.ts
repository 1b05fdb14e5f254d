import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * Instance template insert + get throughput: each connection inserts a template (instant
 * Operations) and reads it back, against fogbank (memory and SQLite stores) and against a bare
 * node:http server doing the same requests, measured in the same run. Prints req/s and ratios.
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
const rows = [
  await measure('bare node:http', [...BARE_SERVER]),
  await measure('fogbank --ephemeral (memory)', [main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn']),
  await measure('fogbank sqlite', [main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn']),
];
rmSync(dir, { recursive: true, force: true });
printTable('instance template insert + get (16 connections, instant operations)', rows);
