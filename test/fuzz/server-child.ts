// The fuzzed fogbank, in a process of its own: a request that kills the process (a V8 abort is
// not an exception) is then a crash the fuzzer counts and survives, and the server and the
// fuzzer's client run on two cores. Started by fuzz-server.ts; speaks to it over IPC.
import { registeredRoutes } from '../../src/core/route-registry.ts';
import { CLUSTER_ROLE_STORE_KIND } from '../../src/services/cluster/rbac/authorizer.ts';
import { startFogbank } from '../../src/testing/fogbank.ts';
import { FUZZ_TOKEN } from './attacks.ts';
import { KNOWN } from './route-params.ts';
import { SEED_REQUESTS } from './seed-state.ts';

/** Object.prototype's own names at start: any other one appearing later is prototype pollution. */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

const server = await startFogbank({ host: '127.0.0.1', port: 0, ephemeral: true, operations: 'instant', adminToken: FUZZ_TOKEN, logLevel: 'silent' });
// Existing state, so requests also reach resources that exist (and "unchanged" is not trivially true).
for (const { method, url, contentType, body } of SEED_REQUESTS(KNOWN)) {
  const response = await server.app.inject({ method, url, headers: { authorization: `Bearer ${FUZZ_TOKEN}`, 'content-type': contentType }, payload: body });
  if (response.statusCode >= 300) throw new Error(`seeding ${method} ${url} answered ${response.statusCode}: ${response.body}`);
}

/**
 * settled resolves once the ClusterRole aggregation controller has stopped writing: it rewrites
 * aggregated roles in the background after any ClusterRole change (as kube-controller-manager
 * does beside the apiserver), one write per turn of the event loop. A state read before that
 * would count its writes against the next request, which may be a rejected one; read after it,
 * they count against the request that caused them. Quiet means no ClusterRole write in three
 * windows in a row; a controller that never settles is bounded, and then shows as stored changes.
 */
let settledAt = 0;
async function settled(): Promise<void> {
  const roles = { kinds: [CLUSTER_ROLE_STORE_KIND], limit: 10_000 };
  // No ClusterRole written since the last settled state: the controller has nothing to do.
  let changes = await server.store.changesSince(settledAt, roles);
  for (let quiet = 0, rounds = 0; changes.length > 0 && quiet < 3 && rounds < 600; rounds++) {
    settledAt = changes.at(-1)!.revision;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const more = await server.store.changesSince(settledAt, roles);
    quiet = more.length === 0 ? quiet + 1 : 0;
    if (more.length > 0) changes = more;
  }
}

process.on('message', (message: { id: number; kind: 'state' } | { id: number; kind: 'changes'; from: number; to: number }) => {
  if (message.kind === 'state') {
    void settled()
      .then(() => server.store.currentRevision())
      .then((revision) => {
        const polluted = Object.getOwnPropertyNames(Object.prototype).filter((name) => !PROTOTYPE_NAMES.has(name));
        const { user, system } = process.cpuUsage();
        process.send!({ id: message.id, revision, polluted, cpuMs: (user + system) / 1000 });
      });
    return;
  }
  void server.store.changesSince(message.from, { limit: 10_000 }).then((changes) => {
    const kinds = new Set(changes.filter((change) => change.revision <= message.to).map((change) => change.kind));
    process.send!({ id: message.id, kinds: [...kinds] });
  });
});
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
process.send!({ ready: true, port: server.port, routes: registeredRoutes(server.app) });
