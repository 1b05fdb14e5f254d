import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * What serving HTTPS on the same port costs plain HTTP (core/tls/same-port.ts reads each
 * connection's first bytes before Node's HTTP parser gets it): GET one ClusterRole by name from
 * `fogbank start --no-tls` (the baseline) and from `fogbank start` (TLS on, the default), with
 * keep-alive connections (the sniffing runs once per connection) and with a new connection per
 * request (`Connection: close`, where it runs once per request), interleaved. Goal: no
 * measurable drop (≥ 0.95×). The same GET over HTTPS is shown for scale.
 */
const TOKEN = 'bench';
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const auth = { authorization: `Bearer ${TOKEN}` };

const keepAlive: autocannon.Request[] = [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: auth }];
const closing: autocannon.Request[] = [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: { ...auth, connection: 'close' } }];

async function seed(url: string): Promise<void> {
  const response = await fetch(`${url}${ROLE}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
  });
  if (response.status >= 300) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
}

/** bench measures GET with TLS sniffing on against --no-tls, per connection style. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const measure =
    (args: string[], requests: autocannon.Request[], https = false) =>
    async () => {
      const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn', ...args]);
      try {
        await seed(server.url);
        const url = https ? server.url.replace(/^http:/, 'https:') : server.url;
        await runLoad({ url, requests, seconds: 1 });
        return (await runLoad({ url, requests, seconds })).requestsPerSecond;
      } finally {
        await server.stop();
      }
    };
  // autocannon's HTTPS client checks certificates; fogbank's ephemeral CA is not one it knows.
  process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  const metrics: BenchMetric[] = [];
  for (const [title, requests] of [
    ['keep-alive connections', keepAlive],
    ['a new connection per request', closing],
  ] as const) {
    const [plain, sniffing, https] = await interleaved(rounds, [
      { label: '--no-tls', measure: measure(['--no-tls'], requests) },
      { label: 'TLS on, plain HTTP', measure: measure([], requests) },
      { label: 'TLS on, HTTPS', measure: measure([], requests, true) },
    ]);
    metrics.push(
      metricOf({
        metric: `GET ClusterRole, TLS on, plain HTTP, ${title}`,
        unit: 'req/s',
        fogbank: sniffing,
        baseline: { label: '--no-tls', samples: plain },
        goal: ratioAtLeast(0.95, '--no-tls'),
      }),
      metricOf({ metric: `GET ClusterRole over HTTPS, ${title}`, unit: 'req/s', fogbank: https, baseline: { label: '--no-tls', samples: plain } }),
    );
  }
  return metrics;
};

runAlone(import.meta, bench);
