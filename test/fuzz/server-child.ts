// The fuzzed fogbank, in a process of its own: a request that kills the process (a V8 abort is
// not an exception) is then a crash the fuzzer counts and survives, and the server and the
// fuzzer's client run on two cores. Started by fuzz-server.ts; speaks to it over IPC.
import { registeredRoutes } from '../../src/core/route-registry.ts';
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

process.on('message', (message: { id: number; kind: 'state' } | { id: number; kind: 'changes'; from: number; to: number }) => {
  if (message.kind === 'state') {
    void server.store.currentRevision().then((revision) => {
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
