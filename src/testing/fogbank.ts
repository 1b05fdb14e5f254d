// fogbank started in the test's own process: loopback, a free port, memory store and no log
// output unless a test asks otherwise. Every server started here is closed when the file ends,
// even when a test forgets or fails before its own `after` hook.
import { startFogbank as startServer, type RunningFogbank, type StartOptions } from '../fogbank.ts';
import { onTestProcessExit } from './exit.ts';
import { tempDir } from './temp.ts';

export type { RunningFogbank, StartOptions };

const running = new Set<RunningFogbank>();

onTestProcessExit(() => {
  // Synchronous last resort: stop listening so the process can end; stores are in memory or in
  // temp dirs the harness removes.
  for (const server of running) server.app.server.close();
  running.clear();
});

/**
 * startFogbank starts fogbank in-process with test defaults (127.0.0.1, port 0, memory store,
 * silent); options override them. It resolves once the families' deferred start-up work is done
 * (`fogbank start` leaves it to each family's first request; here the cluster's namespaces and
 * default policy are in the store before the test reads it).
 */
export async function startFogbank(options: StartOptions = {}): Promise<RunningFogbank> {
  // Without a data directory of the test's own, files (kubeconfig, spooled uploads) would land in
  // ./.fogbank of whatever directory the suite runs in: give every server one the harness removes.
  const dataDir = options.ephemeral === true || options.dataDir !== undefined ? {} : { dataDir: tempDir('server') };
  const server = await startServer({ host: '127.0.0.1', port: 0, store: 'memory', logLevel: 'silent', ...dataDir, ...options });
  running.add(server);
  await server.warmUp();
  const close = server.close.bind(server);
  return {
    ...server,
    close: async () => {
      running.delete(server);
      await close();
    },
  };
}
