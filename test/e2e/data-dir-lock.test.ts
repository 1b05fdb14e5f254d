import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { startFogbankProcess } from '../harness/process.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const dirs: string[] = [];
function dataDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fogbank-lock-')));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** runToExit runs `fogbank start ARGS`, expecting it to end by itself (bounded by a kill after 60 s). */
function runToExit(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'start', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Issue 13 item 8: one data directory, one process; the lock dies with its holder. */
describe('fogbank start on a data directory in use', () => {
  it('a second fogbank on the same data directory refuses to start, naming the directory and the holder, with exit code 3', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      const second = await runToExit(['--port', '0', '--data-dir', dir, '--admin-token', 'tok']);
      assert.equal(second.code, 3);
      assert.equal(
        second.stderr,
        `fogbank: the data directory ${dir} is in use by another fogbank (pid ${first.child.pid}); stop it or start with another --data-dir\n`,
      );
      assert.doesNotMatch(second.stdout, /listening/);
      // The holder is untouched and still writes.
      const insert = await fetch(`${first.url}/compute/v1/projects/p/global/instanceTemplates`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 't1', properties: { machineType: 'e2-small' } }),
      });
      assert.equal(insert.status, 200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('after kill -9 of the holder, a new fogbank starts on the directory at once', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, 'SIGKILL');
    const next = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      const health = await fetch(`${next.url}/healthz`);
      assert.equal(health.status, 200);
      // And it holds the directory in turn.
      const third = await runToExit(['--port', '0', '--data-dir', dir, '--admin-token', 'tok']);
      assert.equal(third.code, 3);
      assert.match(third.stderr, new RegExp(`\\(pid ${next.child.pid}\\)`));
    } finally {
      next.child.kill('SIGTERM');
      await next.exited;
    }
  });

  it('a clean stop releases the directory too', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const next = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    assert.equal((await fetch(`${next.url}/healthz`)).status, 200);
    next.child.kill('SIGTERM');
    assert.equal(await next.exited, 0);
  });
});
