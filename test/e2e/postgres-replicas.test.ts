import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startPostgres, type PostgresServer } from '../../src/testing/postgres-server.ts';
import { FOGBANK_VERSION } from '../../src/lib/version.ts';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { tempDir } from '../../src/testing/temp.ts';

// Several `fogbank start --store postgres://…` processes on one real PostgreSQL database, as a
// team runs them behind a load balancer; replicas die by SIGKILL, never politely.

const TOKEN = 'e2e-replicas';
const TEMPLATES = 'projects/p/global/instanceTemplates';

interface Reply {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${base}/compute/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

describe('fogbank replicas on one PostgreSQL', () => {
  let server: PostgresServer;
  const processes: FogbankProcess[] = [];
  const gclouds: Gcloud[] = [];
  let databases = 0;

  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    for (const gcloud of gclouds) rmSync(gcloud.configDir, { recursive: true, force: true });
    await server?.stop();
  });

  const replica = async (url: string, operations: 'realistic' | 'instant'): Promise<FogbankProcess> => {
    // Each replica keeps its own files (kubeconfig, spooled uploads) in a directory the harness removes.
    const proc = await startFogbankProcess([
      '--port',
      '0',
      '--store',
      url,
      '--data-dir',
      tempDir('replica'),
      '--admin-token',
      TOKEN,
      '--operations',
      operations,
      '--log-level',
      'error',
    ]);
    processes.push(proc);
    return proc;
  };
  const kill9 = async (proc: FogbankProcess): Promise<void> => {
    proc.child.kill('SIGKILL');
    assert.equal(await proc.exited, 'SIGKILL');
  };

  it("a template created with gcloud through A is described through B, and a wait on B wakes on A's work", async () => {
    const url = await server.createDatabase(`replicas_${++databases}`);
    const a = await replica(url, 'realistic');
    const b = await replica(url, 'realistic');
    assert.ok(
      a.lines[0]!.startsWith(`fogbank ${FOGBANK_VERSION} listening on ${a.url} and ${a.url.replace('http:', 'https:')} (store: postgres, ${url}, data: `),
      a.lines[0],
    );
    const throughA = new Gcloud(a.url, TOKEN);
    const throughB = new Gcloud(b.url, TOKEN);
    gclouds.push(throughA, throughB);
    const created = await throughA.run('compute', 'instance-templates', 'create', 'shared', '--machine-type=e2-small');
    assert.equal(created.code, 0, created.stderr);
    const described = await throughB.run('compute', 'instance-templates', 'describe', 'shared', '--format=yaml');
    assert.equal(described.code, 0, described.stderr);
    const template = parseYaml(described.stdout) as Record<string, unknown>;
    assert.equal(template['name'], 'shared');
    assert.equal((template['properties'] as { machineType: string }).machineType, 'e2-small');
    // B's change-feed subscriber (behind Operation wait) hears A's commit: the wait ends DONE,
    // long before its 2-minute cap.
    const op = await call(a.url, 'POST', TEMPLATES, { name: 'waited', properties: { machineType: 'e2-small' } });
    assert.equal(op.json['status'], 'PENDING');
    const waited = await call(b.url, 'POST', `projects/p/global/operations/${op.json['name']}/wait`);
    assert.equal(waited.json['status'], 'DONE');
    assert.equal((await call(b.url, 'GET', `${TEMPLATES}/waited`)).status, 200);
    for (const base of [a.url, b.url]) {
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok', store: { backend: 'postgres', ok: true } });
    }
    await kill9(a);
    await kill9(b);
  });

  it('refuses to start, with a clear message and exit code 69, when the database is unreachable (also via FOGBANK_STORE)', () => {
    const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
    const store = 'postgres://fogbank:hunter2@127.0.0.1:1/fogbank';
    const runs = [
      spawnSync(process.execPath, ['--import', 'tsx', main, 'start', '--port', '0', '--admin-token', TOKEN, '--store', store], {
        encoding: 'utf8',
        timeout: 60_000,
      }),
      spawnSync(process.execPath, ['--import', 'tsx', main, 'start', '--port', '0', '--admin-token', TOKEN], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, FOGBANK_STORE: store },
      }),
    ];
    for (const run of runs) {
      assert.equal(run.status, 69, run.stderr);
      assert.equal(
        run.stderr,
        "fogbank: the store's database is unavailable: cannot reach postgres://fogbank:***@127.0.0.1:1/fogbank: connect ECONNREFUSED 127.0.0.1:1\n",
      );
    }
  });

  it('8 writers spread over two replicas, each a compare-and-swap on the fingerprint, lose no update', async (t) => {
    const url = await server.createDatabase(`replicas_${++databases}`);
    const replicas = [await replica(url, 'instant'), await replica(url, 'instant')];
    const policy = 'projects/p/regions/us-central1/securityPolicies/counter';
    assert.equal((await call(replicas[0]!.url, 'POST', 'projects/p/regions/us-central1/securityPolicies', { name: 'counter', description: '' })).status, 200);
    const perWriter = 8;
    let retries = 0;
    const writer = async (w: number): Promise<void> => {
      const base = replicas[w % 2]!.url;
      for (let i = 0; i < perWriter; ) {
        const current = await call(base, 'GET', policy);
        const description = `${String(current.json['description'] ?? '')}w${w}.${i} `;
        const patched = await call(base, 'PATCH', policy, { description, fingerprint: current.json['fingerprint'] });
        // A stale fingerprint is refused on the request (412) or, if another writer committed in
        // between, by the Operation (DONE with an error): either way nothing was written.
        if (patched.status === 200 && patched.json['error'] === undefined) i++;
        else {
          assert.ok(
            patched.status === 412 || (patched.json['error'] as { errors?: { code: string }[] } | undefined)?.errors?.[0]?.code === 'CONDITION_NOT_MET',
            JSON.stringify(patched.json),
          );
          retries++;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    const final = await call(replicas[1]!.url, 'GET', policy);
    const entries = String(final.json['description']).trim().split(' ').sort();
    const expected = Array.from({ length: 8 }, (_, w) => Array.from({ length: perWriter }, (_, i) => `w${w}.${i}`))
      .flat()
      .sort();
    assert.deepEqual(entries, expected);
    assert.ok(retries > 0, 'the writers really raced');
    t.diagnostic(`${expected.length} updates applied, ${retries} stale attempts refused and retried`);
    for (const proc of replicas) await kill9(proc);
  });

  it('kill -9 of A in the middle of realistic Operations: B finishes every acknowledged one', async (t) => {
    const url = await server.createDatabase(`replicas_${++databases}`);
    const a = await replica(url, 'realistic');
    const b = await replica(url, 'realistic');
    const acknowledged: string[] = [];
    for (let i = 0; i < 10; i++) {
      const op = await call(a.url, 'POST', TEMPLATES, { name: `orphan-${i}`, properties: { machineType: 'e2-small' } });
      assert.equal(op.status, 200);
      acknowledged.push(String(op.json['name']));
    }
    await kill9(a);
    const killedAt = performance.now();
    for (const [i, name] of acknowledged.entries()) {
      const done = await call(b.url, 'POST', `projects/p/global/operations/${name}/wait`);
      assert.equal(done.json['status'], 'DONE', JSON.stringify(done.json));
      assert.equal(done.json['error'], undefined);
      assert.equal((await call(b.url, 'GET', `${TEMPLATES}/orphan-${i}`)).status, 200);
    }
    t.diagnostic(`B finished A's ${acknowledged.length} Operations ${Math.round(performance.now() - killedAt)} ms after the kill`);
    await kill9(b);
  });

  it('20 kill -9 cycles of a replica under write load lose no acknowledged write', { timeout: 600_000 }, async (t) => {
    const url = await server.createDatabase(`replicas_${++databases}`);
    const survivor = await replica(url, 'instant');
    const acknowledged: string[] = [];
    let failed = 0;
    for (let cycle = 0; cycle < 20; cycle++) {
      const victim = await replica(url, 'instant');
      let stop = false;
      let next = 0;
      // Four clients write as fast as the victim answers; it is killed after its 10th
      // acknowledgement, with writes still in flight.
      const killed = new Promise<void>((resolve) => {
        const client = async (): Promise<void> => {
          while (!stop) {
            const name = `c${cycle}-${next++}`;
            try {
              const reply = await call(victim.url, 'POST', TEMPLATES, { name, properties: { machineType: 'e2-small' } });
              if (reply.status === 200 && reply.json['status'] === 'DONE' && reply.json['error'] === undefined) acknowledged.push(name);
              else failed++;
            } catch {
              failed++; // the connection died with the process: not acknowledged
            }
            if (acknowledged.filter((n) => n.startsWith(`c${cycle}-`)).length >= 10 && !stop) {
              stop = true;
              victim.child.kill('SIGKILL');
              resolve();
            }
          }
        };
        for (let i = 0; i < 4; i++) void client();
      });
      await killed;
      assert.equal(await victim.exited, 'SIGKILL');
    }
    const listed = new Set<string>();
    let pageToken: string | undefined;
    do {
      const page = await call(survivor.url, 'GET', `${TEMPLATES}?maxResults=500${pageToken ? `&pageToken=${pageToken}` : ''}`);
      for (const item of (page.json['items'] ?? []) as { name: string }[]) listed.add(String(item.name));
      pageToken = page.json['nextPageToken'] as string | undefined;
    } while (pageToken !== undefined);
    const missing = acknowledged.filter((name) => !listed.has(name));
    assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged writes are missing`);
    assert.ok(acknowledged.length >= 200);
    t.diagnostic(`${acknowledged.length} acknowledged writes over 20 kills, all present; ${failed} unacknowledged (cut by the kill)`);
    await kill9(survivor);
  });

  // Last: it stops the shared PostgreSQL server for a while.
  it('answers 503 backendError and an unhealthy /healthz while the database is down, and serves again once it is back', async () => {
    const url = await server.createDatabase(`replicas_${++databases}`);
    const a = await replica(url, 'instant');
    assert.equal((await call(a.url, 'POST', TEMPLATES, { name: 'before', properties: { machineType: 'e2-small' } })).status, 200);
    await server.kill();
    const down = await call(a.url, 'GET', `${TEMPLATES}/before`);
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, {
      error: {
        code: 503,
        message: 'The service is currently unavailable.',
        errors: [{ message: 'The service is currently unavailable.', domain: 'global', reason: 'backendError' }],
      },
    });
    assert.equal((await call(a.url, 'POST', TEMPLATES, { name: 'during', properties: { machineType: 'e2-small' } })).status, 503);
    const health = await fetch(`${a.url}/healthz`);
    assert.equal(health.status, 503);
    const body = (await health.json()) as { status: string; store: { backend: string; ok: boolean; detail: string } };
    assert.deepEqual([body.status, body.store.backend, body.store.ok], ['unavailable', 'postgres', false]);
    await server.restart();
    let again: Reply | undefined;
    for (let i = 0; i < 200 && again?.status !== 200; i++) {
      again = await call(a.url, 'GET', `${TEMPLATES}/before`);
      if (again.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(again?.status, 200);
    assert.equal((await call(a.url, 'POST', TEMPLATES, { name: 'after', properties: { machineType: 'e2-small' } })).status, 200);
    assert.equal((await call(a.url, 'GET', `${TEMPLATES}/during`)).status, 404);
    await kill9(a);
  });
});
