// `fogbank clock` and `fogbank requests` against a fogbank started by `fogbank start`: they find
// the server through its data directory (server.json and admin-token) or take --url and --token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../src/testing/temp.ts';
import { type FogbankProcess, spawnFogbank, startFogbankProcess } from '../harness/process.ts';

let server: FogbankProcess;
let dir: string;

/** fogbank runs a client command to its end. */
async function fogbank(...args: string[]): Promise<{ exit: unknown; stdout: string; stderr: string }> {
  const spawned = spawnFogbank(args);
  const exit = await spawned.exited;
  return { exit, stdout: spawned.lines.join('\n'), stderr: spawned.stderr() };
}

before(async () => {
  dir = tempDir('cli-control');
  server = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--log-level', 'warn', '--journal-bodies', '4K']);
});
after(() => server.stop('SIGTERM'));

describe('fogbank clock', () => {
  it("shows, freezes, sets, advances and unfreezes the clock of the data directory's server", async () => {
    assert.match((await fogbank('clock', '--data-dir', dir)).stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z running$/);
    assert.match((await fogbank('clock', 'freeze', '--data-dir', dir)).stdout, / frozen$/);
    assert.equal((await fogbank('clock', 'set', '2026-01-01T00:00:00Z', '--data-dir', dir)).stdout, '2026-01-01T00:00:00.000Z frozen');
    assert.equal((await fogbank('clock', 'advance', '1h30m', '--data-dir', dir)).stdout, '2026-01-01T01:30:00.000Z frozen');
    // Running again from where it stood: the answer is read a moment after the clock started to move.
    assert.match((await fogbank('clock', 'unfreeze', `--data-dir=${dir}`)).stdout, /^2026-01-01T01:30:0\d\.\d{3}Z running$/);
  });

  it('refuses bad input with one line on stderr and exit 2', async () => {
    const cases: [string[], string][] = [
      [['clock', 'advance', '1x'], 'fogbank: time: unknown unit "x" in duration "1x" (write it as 1h, 30s, 1h30m or 250ms) (see: fogbank clock --help)\n'],
      [['clock', 'set', 'tomorrow'], "fogbank: 'tomorrow' is not an RFC 3339 time such as 2026-01-01T00:00:00Z (see: fogbank clock --help)\n"],
      [['clock', 'rewind'], "fogbank: unknown clock action 'rewind' (show, freeze, unfreeze, set TIME, advance DURATION) (see: fogbank clock --help)\n"],
      [['clock', 'advance'], 'fogbank: clock advance needs a DURATION (see: fogbank clock --help)\n'],
      [['requests', '--status', 'bad'], "fogbank: --status must be an HTTP status (404) or class (4xx), not 'bad' (see: fogbank requests --help)\n"],
      [['requests', '--colour', 'red'], 'fogbank: unknown flag --colour (see: fogbank requests --help)\n'],
      // Refused by the server (a 400), still exit 2 with its message.
      [['clock', 'set', '2026-02-30T00:00:00Z'], 'fogbank: "set": "2026-02-30T00:00:00Z" is not an RFC 3339 time such as "2026-01-01T00:00:00Z".\n'],
    ];
    for (const [args, stderr] of cases) {
      const got = await fogbank(...args, '--data-dir', dir);
      assert.deepEqual([got.exit, got.stderr], [2, stderr], args.join(' '));
    }
  });

  it('takes --url and --token, and says so when the token is refused', async () => {
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    assert.match((await fogbank('clock', 'show', '--url', server.url, '--token', token)).stdout, / running$/);
    const refused = await fogbank('clock', '--url', server.url, '--token', 'nope');
    assert.deepEqual([refused.exit, refused.stderr], [1, 'fogbank: The token is not one this server issued.\n']);
    const nowhere = await fogbank('clock', '--data-dir', tempDir('empty'));
    assert.equal(nowhere.exit, 2);
    assert.match(nowhere.stderr, /^fogbank: no running fogbank found: .*server\.json is missing \(start one, or pass --url\)/);
  });
});

describe('fogbank requests', () => {
  it('prints the journal oldest first, filtered, one request a line', async () => {
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    await fetch(`${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles/admin`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates/missing`, { headers: { authorization: `Bearer ${token}` } });
    const got = await fogbank('requests', '--limit', '2', '--data-dir', dir);
    assert.equal(got.exit, 0, got.stderr);
    const lines = got.stdout.split('\n').map((line) => line.split('  ').slice(1, 5));
    assert.deepEqual(lines, [
      ['200', 'cluster', 'get clusterroles', 'admin@fogbank.local'],
      ['404', 'compute', 'compute.instanceTemplates.get', 'admin@fogbank.local'],
    ]);
    const json = await fogbank('requests', '--family', 'cluster', '--method', 'get clusterroles', '--json', '--data-dir', dir);
    assert.equal(JSON.parse(json.stdout.split('\n')[0]!).path, '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin');
  });

  it('--bodies prints the kept request and response bodies under each line', async () => {
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    const created = await fetch(`${server.url}/gmail/v1/users/me/labels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":"from-the-cli-test"}',
    });
    const answer = await created.text();
    const got = await fogbank('requests', '--method', 'gmail.users.labels.create', '--limit', '1', '--bodies', '--data-dir', dir);
    assert.equal(got.exit, 0, got.stderr);
    const [line, ...bodies] = got.stdout.split('\n');
    assert.match(line ?? '', / {2}200 {2}mail {2}gmail\.users\.labels\.create {2}admin@fogbank\.local {2}/);
    assert.deepEqual(bodies, ['    > {"name":"from-the-cli-test"}', ...answer.split('\n').map((text) => `    < ${text}`)]);
  });

  it('--follow prints new requests as they are answered', async () => {
    const follower = spawnFogbank(['requests', '--follow', '--json', '--family', 'compute', '--status', '404', '--limit', '1', '--data-dir', dir]);
    // The backlog first (the filter's newest), then the stream.
    await follower.waitForLine(/instanceTemplates\/missing/);
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    const followed = `${server.url}/compute/v1/projects/p/global/instanceTemplates/followed`;
    // The stream opens just after the backlog is printed: ask until the new request comes through.
    let seen = false;
    void follower.waitForLine(/instanceTemplates\/followed/, 20_000).then(
      () => (seen = true),
      () => undefined,
    );
    for (let i = 0; i < 40 && !seen; i++) {
      await fetch(followed, { headers: { authorization: `Bearer ${token}` } });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.ok(seen, follower.lines.join('\n'));
    assert.equal(await follower.stop('SIGINT'), 0);
  });
});

describe('fogbank snapshot and fogbank reset', () => {
  it('save, reset and load give the server back its state; a bad file is refused with exit 2 and changes nothing', async () => {
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    const role = `${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles/kept-by-snapshot`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kept-by-snapshot' }, rules: [] }),
    });
    assert.equal(created.status, 201);
    const before = await (await fetch(role, { headers })).text();
    const file = `${tempDir('cli-snapshot')}/state.gz`;

    const saved = await fogbank('snapshot', 'save', file, '--data-dir', dir);
    assert.equal(saved.exit, 0, saved.stderr);
    assert.match(saved.stdout, /^saved .*state\.gz \(\d+ bytes\)$/);
    const reset = await fogbank('reset', '--data-dir', dir);
    assert.equal(reset.exit, 0, reset.stderr);
    assert.match(reset.stdout, /^reset: every family is empty; the store is now at revision \d+$/);
    assert.equal((await fetch(role, { headers })).status, 404);

    const bad = `${tempDir('cli-snapshot')}/bad.gz`;
    (await import('node:fs')).writeFileSync(bad, 'not a snapshot');
    const refused = await fogbank('snapshot', 'load', bad, '--data-dir', dir);
    assert.deepEqual([refused.exit, refused.stderr], [2, 'fogbank: not a fogbank snapshot: it is not gzip data\n']);
    assert.equal((await fetch(role, { headers })).status, 404, 'a refused snapshot changes nothing');

    const loaded = await fogbank('snapshot', 'load', file, '--data-dir', dir);
    assert.equal(loaded.exit, 0, loaded.stderr);
    assert.match(loaded.stdout, /^loaded .*state\.gz \(\d+ bytes, taken at revision \d+\): \d+ records, 0 files, 0 uploads; the store is now at revision \d+$/);
    assert.equal(await (await fetch(role, { headers })).text(), before);
  });

  it('refuses bad input with one line on stderr and exit 2', async () => {
    const cases: [string[], string][] = [
      [['snapshot'], 'fogbank: snapshot needs save FILE or load FILE (see: fogbank snapshot --help)\n'],
      [['snapshot', 'copy', 'x'], "fogbank: unknown snapshot action 'copy' (save FILE, load FILE) (see: fogbank snapshot --help)\n"],
      [['snapshot', 'load'], 'fogbank: snapshot load needs a FILE (see: fogbank snapshot --help)\n'],
      [['snapshot', 'load', '/nonexistent/state.gz'], 'fogbank: cannot read /nonexistent/state.gz: no such file (see: fogbank snapshot --help)\n'],
      [['reset', 'now'], "fogbank: unexpected argument 'now' (see: fogbank reset --help)\n"],
    ];
    for (const [args, stderr] of cases) {
      const got = await fogbank(...args, '--data-dir', dir);
      assert.deepEqual([got.exit, got.stderr], [2, stderr], args.join(' '));
    }
  });
});

describe('fogbank faults', () => {
  it('adds a rule the next request meets, lists it, and clears rules', async () => {
    const token = (await import('node:fs')).readFileSync(`${dir}/admin-token`, 'utf8').trim();
    const added = await fogbank('faults', 'add', '{"method":"compute.instanceTemplates.get","status":503,"times":1}', '--data-dir', dir);
    assert.equal(added.exit, 0, added.stderr);
    const rule = JSON.parse(added.stdout) as { id: string; family: string };
    assert.equal(rule.family, 'compute');
    assert.equal(
      (await fogbank('faults', 'list', '--data-dir', dir)).stdout,
      `${rule.id}  family=compute method=compute.instanceTemplates.get  status=503  1 left`,
    );
    const url = `${server.url}/compute/v1/projects/p/global/instanceTemplates/t`;
    const failed = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(failed.status, 503);
    assert.equal(((await failed.json()) as { error: { errors: { reason: string }[] } }).error.errors[0]?.reason, 'backendError');
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status, 404, 'spent after one firing');
    assert.equal((await fogbank('faults', 'list', '--data-dir', dir)).stdout, '');

    const second = JSON.parse((await fogbank('faults', 'add', '{"family":"mail","status":500}', '--data-dir', dir)).stdout) as { id: string };
    assert.equal((await fogbank('faults', 'clear', second.id, '--data-dir', dir)).exit, 0);
    await fogbank('faults', 'add', '{"family":"mail","status":500}', '--data-dir', dir);
    assert.equal((await fogbank('faults', 'clear', '--data-dir', dir)).exit, 0);
    assert.equal((await fogbank('faults', 'list', '--json', '--data-dir', dir)).stdout, '');
  });

  it('refuses bad rules with one line on stderr and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['faults', 'add'], /^fogbank: faults add needs a RULE, a JSON object such as \{"family":"mail","status":503\} \(see: fogbank faults --help\)\n$/],
      [['faults', 'add', '{oops'], /^fogbank: the RULE is not JSON: \{oops \(see: fogbank faults --help\)\n$/],
      [
        ['faults', 'add', '{"method":"compute.instanceTemplates.inster","status":500}'],
        /^fogbank: .*unknown method id "compute\.instanceTemplates\.inster".*\n$/,
      ],
      [['faults', 'toggle'], /^fogbank: unknown faults action 'toggle' \(add RULE, list, clear \[ID\]\) \(see: fogbank faults --help\)\n$/],
    ];
    for (const [args, stderr] of cases) {
      const got = await fogbank(...args, '--data-dir', dir);
      assert.equal(got.exit, 2, args.join(' '));
      assert.match(got.stderr, stderr, args.join(' '));
    }
  });
});
