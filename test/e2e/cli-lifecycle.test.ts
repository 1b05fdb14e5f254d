import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startFogbankProcess } from './helpers/fogbank-process.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-cli-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const response = await fetch(`${url}/compute/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, any>) };
}

describe('fogbank start as a process', () => {
  it('--port 0 picks a free port, prints it, answers /healthz, keeps a generated admin token, and exits 0 on SIGTERM', async () => {
    const dir = dataDir();
    const server = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.url, 'http://127.0.0.1:0');
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    const tokenFile = join(dir, 'admin-token');
    assert.ok(existsSync(tokenFile));
    const token = readFileSync(tokenFile, 'utf8').trim();
    assert.match(token, /^fogbank-[0-9a-f]{32}$/);
    assert.ok(server.lines.some((line) => line.includes(`gcloud config set auth/access_token_file ${tokenFile}`)));
    assert.ok(server.lines.some((line) => line.includes(`gcloud config set api_endpoint_overrides/compute ${server.url}/compute/v1/`)));
    assert.equal((await call(server.url, token, 'GET', 'projects/p/global/instanceTemplates')).status, 200);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    // The same token is used again on the next start.
    const again = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
    assert.equal((await call(again.url, token, 'GET', 'projects/p/global/instanceTemplates')).status, 200);
    again.child.kill('SIGINT');
    assert.equal(await again.exited, 0);
  });

  it('restarting on the same data directory keeps templates and operations', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--operations', 'instant', '--log-level', 'warn']);
    const op = await call(first.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name: 'kept', properties: { machineType: 'e2-small' } });
    assert.equal(op.json['status'], 'DONE');
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const second = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      const template = await call(second.url, 'tok', 'GET', 'projects/p/global/instanceTemplates/kept');
      assert.equal(template.status, 200);
      assert.equal(template.json['properties'].machineType, 'e2-small');
      const again = await call(second.url, 'tok', 'GET', `projects/p/global/operations/${String(op.json['name'])}`);
      assert.equal(again.status, 200);
      assert.equal(again.json['status'], 'DONE');
      assert.equal(again.json['id'], op.json['id']);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('after SIGKILL during inserts, every acknowledged insert is there and its Operation completes', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    const acknowledged: { name: string; operation: string }[] = [];
    let stop = false;
    const writers = [0, 1, 2, 3].map(async (writer) => {
      for (let i = 0; !stop && i < 500; i++) {
        const name = `t-${writer}-${i}`;
        try {
          const op = await call(first.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name, properties: { machineType: 'e2-small' } });
          if (op.status === 200) acknowledged.push({ name, operation: String(op.json['name']) });
        } catch {
          return; // the server died mid-request: that insert was never acknowledged
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    assert.equal(await first.exited, 'SIGKILL');
    const second = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      for (const { name, operation } of acknowledged) {
        const done = await call(second.url, 'tok', 'POST', `projects/p/global/operations/${operation}/wait`);
        assert.equal(done.status, 200, `operation of ${name}`);
        assert.equal(done.json['status'], 'DONE', `operation of ${name}`);
        assert.equal(done.json['error'], undefined, `operation of ${name}`);
        const template = await call(second.url, 'tok', 'GET', `projects/p/global/instanceTemplates/${name}`);
        assert.equal(template.status, 200, `template ${name}`);
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('the bundle that npm start runs serves the same API', async () => {
    const root = new URL('../../', import.meta.url);
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root });
    const dir = dataDir();
    const server = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--operations', 'instant', '--log-level', 'warn'], new URL('dist/fogbank.mjs', root).pathname);
    try {
      const op = await call(server.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name: 'bundled', properties: { machineType: 'e2-small' } });
      assert.equal(op.json['status'], 'DONE');
      assert.equal((await call(server.url, 'tok', 'GET', 'projects/p/global/instanceTemplates/bundled')).status, 200);
      assert.equal((await call(server.url, 'tok', 'POST', 'projects/p/regions/us-central1/securityPolicies', { name: 'pol' })).status, 200);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
    const help = execFileSync(process.execPath, [new URL('dist/fogbank.mjs', root).pathname, 'protoc', '--help'], { encoding: 'utf8' });
    assert.equal(help.match(/^Usage: fogbank protoc/gm)?.length, 1);
  });

  it('rejects unknown flags with a usage message and exit code 2', async () => {
    await assert.rejects(startFogbankProcess(['--bogus']), /unknown flag --bogus/);
  });
});
