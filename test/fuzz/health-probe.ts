import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** ProbeResult is what the concurrent /healthz probe saw. */
export interface ProbeResult {
  readonly probes: number;
  /** The longest any one probe waited for its answer, in milliseconds. */
  readonly worstMs: number;
}

/** PROBE_INTERVAL_MS is the pause between probes. */
const PROBE_INTERVAL_MS = 100;

/**
 * startHealthProbe asks /healthz over its own keep-alive connection, one probe after another,
 * while the fuzz run goes on: a request that blocks the event loop shows up as a probe that
 * waited that long. `port` may be a function, for a server that is restarted under the probe.
 * `stop` ends the loop and reports.
 */
export function startHealthProbe(port: number | (() => number)): { stop(): Promise<ProbeResult> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let probes = 0;
  let worstMs = 0;
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const started = performance.now();
      const done = (): void => {
        worstMs = Math.max(worstMs, performance.now() - started);
        probes++;
        resolve();
      };
      const probe = request({ host: '127.0.0.1', port: typeof port === 'number' ? port : port(), path: '/healthz', agent }, (response) => {
        response.resume();
        response.on('end', done);
      });
      probe.on('error', done);
      probe.end();
    });
  const loop = (async () => {
    while (running) {
      await once();
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return { probes, worstMs };
    },
  };
}
