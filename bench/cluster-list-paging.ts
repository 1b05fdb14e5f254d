import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { ensureBuilt, rssMb, startProcess } from './lib/processes.ts';

/**
 * Listing many Events in pages: EVENTS (default 100,000) events are created in the SQLite store,
 * then listed with limit=500 following `continue` to the end. Prints the server's RSS before,
 * during and after the walk (goal: flat — a page costs the page, not the collection) and the
 * page latency.
 */
const EVENTS = Number(process.env['EVENTS'] ?? 100_000);
const TOKEN = 'bench';
const NS = '/apis/events.k8s.io/v1/namespaces/default/events';
const main = ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
const server = await startProcess([main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']);
const url = new URL(server.url);
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function call(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method, agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

try {
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < EVENTS) {
        const i = next++;
        const body = JSON.stringify({
          metadata: { name: `ev-${String(i).padStart(6, '0')}` },
          eventTime: '2025-01-01T00:00:00.000000Z',
          reportingController: 'example.com/bench',
          reportingInstance: 'bench-1',
          action: 'Fill',
          reason: 'Filled',
          type: 'Normal',
          note: `event number ${i}`,
          regarding: { kind: 'Pod', name: `pod-${i % 100}`, namespace: 'default' },
        });
        const response = await call('POST', NS, body);
        if (response.status !== 201) throw new Error(`create answered ${response.status}: ${response.text}`);
      }
    }),
  );
  const filled = performance.now() - began;
  const pid = server.child.pid!;
  const rss: number[] = [rssMb(pid)];
  const pageMs: number[] = [];
  let token: string | undefined;
  let seen = 0;
  let pages = 0;
  let resourceVersion: string | undefined;
  do {
    const started = performance.now();
    const response = await call('GET', `${NS}?limit=500${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`);
    pageMs.push(performance.now() - started);
    const list = JSON.parse(response.text) as { items: unknown[]; metadata: { continue?: string; resourceVersion: string } };
    resourceVersion ??= list.metadata.resourceVersion;
    if (list.metadata.resourceVersion !== resourceVersion) throw new Error('pages are not consistent');
    seen += list.items.length;
    token = list.metadata.continue;
    if (++pages % 40 === 0) rss.push(rssMb(pid));
  } while (token !== undefined);
  rss.push(rssMb(pid));
  pageMs.sort((a, b) => a - b);
  console.log(`created ${EVENTS} events (SQLite) in ${(filled / 1000).toFixed(1)} s (${((EVENTS * 1000) / filled).toFixed(0)}/s)`);
  console.log(`listed ${seen} events in ${pages} pages of 500, all at resourceVersion ${resourceVersion}`);
  console.log(`page latency ms: p50 ${pageMs[pageMs.length >> 1]!.toFixed(1)}  p99 ${pageMs[Math.floor(pageMs.length * 0.99)]!.toFixed(1)}`);
  console.log(
    `server RSS MiB during the walk: ${rss.map((value) => value.toFixed(0)).join(' → ')} (spread ${(Math.max(...rss) - Math.min(...rss)).toFixed(1)} MiB)`,
  );
  if (seen !== EVENTS) throw new Error(`listed ${seen}, expected ${EVENTS}`);
} finally {
  agent.destroy();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
