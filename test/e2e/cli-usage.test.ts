// The fogbank command line as a newcomer meets it: version, help, refused flags, a taken port, a
// read-only data directory, and the request log in both formats.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FOGBANK_VERSION } from '../../src/lib/version.ts';
import { runToEnd, spawnFogbank, startFogbankProcess, withTimeout } from '../harness/process.ts';
import { REPO } from '../harness/paths.ts';
import { tempDir } from '../../src/testing/temp.ts';

const MAIN = join(REPO, 'src/cli/main.ts');

/** fogbank runs one fogbank command to its end. */
function fogbank(...args: string[]) {
  return runToEnd(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO });
}

describe('fogbank command line', () => {
  for (const flag of ['--version', '-v', 'version']) {
    it(`fogbank ${flag} prints the version`, async () => {
      const r = await fogbank(flag);
      assert.deepEqual(r, { exit: 0, stdout: `fogbank ${FOGBANK_VERSION}\n`, stderr: '' });
    });
  }

  it('fogbank help lists the commands; fogbank help start and fogbank start --help list every flag with its default', async () => {
    const help = await fogbank('help');
    assert.equal(help.exit, 0);
    assert.match(help.stdout, /^usage: fogbank <command> \[flags\]\n/);
    assert.match(help.stdout, /^ {2}start +serve every API on one port/m);
    const start = await fogbank('start', '--help');
    assert.equal(start.exit, 0);
    assert.equal((await fogbank('help', 'start')).stdout, start.stdout);
    for (const flag of ['host', 'port', 'data-dir', 'ephemeral', 'store', 'admin-token', 'operations', 'config', 'log-level', 'log-format']) {
      assert.match(start.stdout, new RegExp(`^  --${flag}\\b.*\\(default: [^)]+\\)$`, 'm'), `--${flag}`);
    }
  });

  const refused: [string[], string][] = [
    [
      ['start', '--ephemeral', '--data-dir', 'd'],
      'fogbank: --ephemeral writes nothing to disk, so it cannot be combined with --data-dir (see: fogbank start --help)\n',
    ],
    [['start', '--port', '1', '--port', '2'], 'fogbank: --port is given more than once (see: fogbank start --help)\n'],
    [['start', '--bogus'], 'fogbank: unknown flag --bogus (see: fogbank start --help)\n'],
    [['serve'], "fogbank: unknown command 'serve' (see: fogbank help)\n"],
  ];
  for (const [args, message] of refused) {
    it(`fogbank ${args.join(' ')} is refused with exit 2`, async () => {
      assert.deepEqual(await fogbank(...args), { exit: 2, stdout: '', stderr: message });
    });
  }

  it('a taken port says so and suggests --port 0', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as { port: number }).port;
      const r = await fogbank('start', '--port', String(port), '--ephemeral');
      assert.equal(r.exit, 1);
      assert.equal(
        r.stderr,
        `fogbank: 127.0.0.1:${port} is already in use (another fogbank?); choose another port with --port, or --port 0 for any free one\n`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a read-only data directory is named, with what to do', async () => {
    const parent = tempDir('readonly');
    chmodSync(parent, 0o755);
    const dir = join(parent, 'data');
    mkdirSync(dir);
    // Permission bits do not stop root: as root the directory is made immutable instead (which
    // stops root too), or, where chattr is unavailable, fogbank runs as root without the
    // capabilities that override permission bits (setpriv) — still the owner of the clone, which
    // may sit in a directory only root can enter — or, without setpriv, as the unprivileged nobody.
    let immutable = false;
    let asUser = {};
    if (process.getuid?.() === 0) {
      immutable = spawnSync('chattr', ['+i', dir]).status === 0;
      if (!immutable)
        asUser =
          spawnSync('setpriv', ['--version']).status === 0
            ? { wrapper: ['setpriv', '--bounding-set=-dac_override,-dac_read_search'] }
            : { uid: 65534, gid: 65534 };
    }
    if (!immutable) chmodSync(dir, 0o555);
    try {
      const child = spawnFogbank(['start', '--port', '0', '--data-dir', dir], { ...asUser, env: { ...process.env, TSX_DISABLE_CACHE: '1', HOME: parent } });
      assert.equal(await withTimeout(child.exited, 30_000, 'fogbank to refuse the data directory'), 1);
      const reason = immutable ? 'operation not permitted' : 'permission denied';
      assert.equal(
        child.stderr(),
        `fogbank: cannot write to the data directory ${dir}: ${reason}; choose another with --data-dir, or keep nothing on disk with --ephemeral\n`,
      );
    } finally {
      if (immutable) spawnSync('chattr', ['-i', dir]);
    }
  });
});

describe('fogbank output', () => {
  it('by default: the banner, then one line per request (method, path, status, time)', async () => {
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', 'tok']);
    try {
      assert.equal(server.lines[0], `fogbank ${FOGBANK_VERSION} listening on ${server.url} and ${server.url.replace('http:', 'https:')} (store: memory)`);
      assert.ok(server.lines.includes(`      gcloud config set api_endpoint_overrides/compute ${server.url}/compute/v1/`));
      assert.ok(server.lines.includes(`  compute        ${server.url}/compute/v1/`));
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.equal(
        (await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates/none`, { headers: { authorization: 'Bearer tok' } })).status,
        404,
      );
      await server.waitForLine(/^GET \/compute\/v1\/projects\/p\/global\/instanceTemplates\/none 404 \d+\.\dms$/);
      assert.ok(server.lines.some((line) => /^GET \/healthz 200 \d+\.\dms$/.test(line)));
      assert.ok(!server.lines.some((line) => line.startsWith('{')), 'no JSON by default');
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
  });

  it('--log-level warn shows only failed requests', async () => {
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--log-level', 'warn']);
    try {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.equal((await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates`)).status, 401);
      await server.waitForLine(/^GET \/compute\/v1\/projects\/p\/global\/instanceTemplates 401 /);
      assert.ok(!server.lines.some((line) => line.startsWith('GET /healthz')));
    } finally {
      await server.stop('SIGTERM');
    }
  });

  it('--log-format json writes one JSON record per request', async () => {
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--log-format', 'json']);
    try {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      const [line] = await server.waitForLine(/^\{.*"url":"\/healthz".*\}$/);
      const record = JSON.parse(line) as Record<string, unknown>;
      assert.equal(record['msg'], 'request completed');
      assert.equal(record['method'], 'GET');
      assert.equal(record['statusCode'], 200);
      assert.equal(record['level'], 30);
      assert.equal(typeof record['responseTime'], 'number');
    } finally {
      await server.stop('SIGTERM');
    }
  });
});
