import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleItems, zipBuffer } from '../src/services/publisher/artifact-builder.fixture.ts';
import { BARE_SERVER, ensureBuilt, rssMb, startProcess } from './lib/processes.ts';
import { atMost, type Bench, type BenchMetric, interleaved, metricOf, ratioAtMost, runAlone } from './lib/report.ts';

/**
 * Start-up benchmark (issue 27): time from spawning `fogbank start` (compiled, as `npm start` runs
 * it) to its `listening on` line — every API answering — against a bare node:http server process,
 * interleaved in the same run; idle RSS; and the first request to each family.
 *
 * Goals: ready ≤ 1.5× bare; idle RSS ≤ 80 MB (plain VmRSS read IDLE_MS, default 3000, after the
 * ready line, no request sent and no GC forced: by then the background warm-up `fogbank start`
 * does after the ready line is over, so this is the process as it sits waiting); the first request
 * to each family ≤ 50 ms, sent at once after the ready line (the family may still be warming) and
 * sent WARM_MS (default 1000) after it (the warm-up is done). Each first request is its own fresh
 * `--ephemeral` process; the second request, sent right after the first, is the baseline.
 */
/** MB is the decimal megabyte the RSS goal is stated in. */
const MB = 1e6 / 1024 ** 2;
const TOKEN = 'b';
const WARM_MS = Number(process.env['WARM_MS'] ?? 1000);

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  dirs.push(dir);
  return dir;
};

function call(url: string, method: string, path: string, contentType?: string, body?: string | Buffer): Promise<Response> {
  return fetch(new URL(path, url), {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body }),
  });
}

/** bench measures ready time and idle RSS against bare node:http, and each family's first request. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const idleMs = Number(process.env['IDLE_MS'] ?? 3000);
  const common = ['--port', '0', '--admin-token', TOKEN, '--log-level', 'warn'];
  const kept = fresh();
  const metrics: BenchMetric[] = [];
  try {
    // Ready time: no idle wait, so many short rounds cost little.
    const readyOf = (args: () => string[]) => async () => {
      const started = await startProcess(args());
      await started.stop();
      return started.readyMs;
    };
    const subjects: [string, () => string[]][] = [
      ['sqlite, new data directory', () => [main, 'start', ...common, '--data-dir', fresh()]],
      // A data directory's first start makes its TLS certificates (after the ready line); later ones read them.
      ['sqlite, restart', () => [main, 'start', ...common, '--data-dir', kept]],
      ['--ephemeral', () => [main, 'start', ...common, '--ephemeral']],
    ];
    const readyRounds = quick ? rounds : rounds * 2;
    const [bare, ...ready] = await interleaved(readyRounds, [
      { label: 'bare node:http', measure: readyOf(() => [...BARE_SERVER]) },
      ...subjects.map(([label, args]) => ({ label, measure: readyOf(args) })),
    ]);
    for (const [index, [label]] of subjects.entries()) {
      metrics.push(
        metricOf({
          metric: `start to ready, ${label}`,
          unit: 'ms',
          fogbank: ready[index]!,
          baseline: { label: 'bare node:http', samples: bare },
          goal: ratioAtMost(1.5),
        }),
      );
    }

    // Idle RSS, IDLE_MS after the ready line.
    const rssOf = (args: () => string[]) => async () => {
      const started = await startProcess(args());
      await new Promise((resolve) => setTimeout(resolve, quick ? Math.min(idleMs, 1500) : idleMs));
      const rss = rssMb(started.child.pid!) / MB;
      await started.stop();
      return rss;
    };
    const [bareRss, sqliteRss, ephemeralRss] = await interleaved(rounds, [
      { label: 'bare node:http', measure: rssOf(() => [...BARE_SERVER]) },
      { label: 'sqlite', measure: rssOf(() => [main, 'start', ...common, '--data-dir', kept]) },
      { label: 'ephemeral', measure: rssOf(() => [main, 'start', ...common, '--ephemeral']) },
    ]);
    const note = `VmRSS ${quick ? 'up to 1.5 s' : `${idleMs} ms`} after the ready line, background warm-up included, no GC forced`;
    metrics.push(
      metricOf({
        metric: 'idle RSS, sqlite (restart)',
        unit: 'MB',
        fogbank: sqliteRss,
        baseline: { label: 'bare node:http', samples: bareRss },
        goal: atMost(80, 'MB'),
        note,
      }),
      metricOf({
        metric: 'idle RSS, --ephemeral',
        unit: 'MB',
        fogbank: ephemeralRss,
        baseline: { label: 'bare node:http', samples: bareRss },
        goal: atMost(80, 'MB'),
      }),
    );

    // First request to each family, each in a fresh process. The publisher's first upload of an
    // unsigned bundle also records the server's signing identity (RSA 2048), once per data
    // directory: made by the warm-up in memory, or by the upload when it comes first.
    const bundle = await zipBuffer(bundleItems({ packageName: 'com.example.first', versionCode: 1 }));
    const message = (n: number) =>
      JSON.stringify({ raw: Buffer.from(`From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: first ${n}\r\n\r\nhello\r\n`).toString('base64url') });
    const policy = (n: number) =>
      JSON.stringify({
        name: `first-${n}`,
        rules: [
          { priority: 1000, action: 'allow', match: { expr: { expression: `request.path.startsWith('/p${n}')` } } },
          { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
        ],
      });
    const families: { label: string; send: (url: string, n: number) => Promise<Response> }[] = [
      {
        label: 'compute securityPolicies.insert',
        send: (url, n) => call(url, 'POST', '/compute/v1/projects/p/global/securityPolicies', 'application/json', policy(n)),
      },
      { label: 'compute instanceTemplates.list', send: (url, n) => call(url, 'GET', `/compute/v1/projects/p/global/instanceTemplates?filter=name%3Dx${n}`) },
      { label: 'cluster GET /api/v1/namespaces', send: (url) => call(url, 'GET', '/api/v1/namespaces') },
      { label: 'mail messages.send', send: (url, n) => call(url, 'POST', '/gmail/v1/users/me/messages/send', 'application/json', message(n)) },
      {
        label: 'publisher bundle upload',
        send: (url) =>
          call(
            url,
            'POST',
            '/upload/androidpublisher/v3/applications/internalappsharing/com.example.first/artifacts/bundle?uploadType=media',
            'application/octet-stream',
            bundle,
          ),
      },
    ];
    const timed = async (family: (typeof families)[number], url: string, n: number): Promise<number> => {
      const began = performance.now();
      const response = await family.send(url, n);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${family.label}: ${response.status}`);
      return performance.now() - began;
    };
    for (const [when, waitMs] of [
      ['at once', 0],
      [`${WARM_MS} ms`, WARM_MS],
    ] as const) {
      for (const family of families) {
        const second: number[] = [];
        const [first] = await interleaved(rounds, [
          {
            label: 'first',
            measure: async () => {
              const started = await startProcess([main, 'start', ...common, '--ephemeral', '--operations', 'instant']);
              try {
                if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
                const ms = await timed(family, started.url, 1);
                second.push(await timed(family, started.url, 2));
                return ms;
              } finally {
                await started.stop();
              }
            },
          },
        ]);
        metrics.push(
          metricOf({
            metric: `first request ${when} after ready, ${family.label}`,
            unit: 'ms',
            fogbank: first,
            baseline: { label: 'second request', samples: second },
            goal: atMost(50, 'ms'),
          }),
        );
      }
    }
    return metrics;
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
