import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { ensureBuilt, rssMb, startProcess } from './lib/processes.ts';
import { atMost, type Bench, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * Listing many Events in pages: EVENTS (default 100,000; 10,000 with --quick) events are created
 * in the SQLite store, then listed with limit=500 following `continue` to the end, once per round.
 * Reports the server's RSS growth over each walk (goal: flat — a page costs the page, not the
 * collection; stated as ≤ 16 MB), the page latency and the create rate (no baseline: these are
 * the server's own figures).
 */
const TOKEN = 'bench';
const NS = '/apis/events.k8s.io/v1/namespaces/default/events';

/** bench fills the store once and walks the collection in pages once per round. */
export const bench: Bench = async ({ rounds, quick }) => {
  const events = Number(process.env['EVENTS'] ?? (quick ? 10_000 : 100_000));
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
        while (next < events) {
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
    const createRate = (events * 1000) / (performance.now() - began);
    const pid = server.child.pid!;
    const walk = async (): Promise<{ growth: number; p50: number; p99: number }> => {
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
        if (++pages % 10 === 0) rss.push(rssMb(pid));
      } while (token !== undefined);
      rss.push(rssMb(pid));
      if (seen !== events) throw new Error(`listed ${seen}, expected ${events}`);
      pageMs.sort((a, b) => a - b);
      return {
        growth: ((Math.max(...rss) - rss[0]!) * 1024 ** 2) / 1e6,
        p50: pageMs[pageMs.length >> 1]!,
        p99: pageMs[Math.floor(pageMs.length * 0.99)]!,
      };
    };
    const walks: { growth: number; p50: number; p99: number }[] = [];
    await interleaved(rounds, [
      {
        label: 'walk',
        measure: async () => {
          walks.push(await walk());
          return 0;
        },
      },
    ]);
    return [
      metricOf({
        metric: `RSS growth over a walk of ${events.toLocaleString('en-US')} Events in pages of 500 (SQLite)`,
        unit: 'MB',
        fogbank: walks.map((w) => w.growth),
        goal: atMost(16, 'MB'),
        note: 'goal "flat": a page costs the page, not the collection',
      }),
      metricOf({ metric: 'list page of 500 Events, p50', unit: 'ms', fogbank: walks.map((w) => w.p50) }),
      metricOf({ metric: 'list page of 500 Events, p99', unit: 'ms', fogbank: walks.map((w) => w.p99) }),
      metricOf({ metric: 'Event create while filling (32 connections, SQLite)', unit: 'events/s', fogbank: [createRate], note: 'one fill per run' }),
    ];
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
