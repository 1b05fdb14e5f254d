// `fogbank start` and HTTPS: the banner names both addresses; a new data directory's certificates
// are made before the banner (the kubeconfig has its HTTPS contexts at the ready line,
// cli-ready-files.test.ts) and kept, so a restart trusts the same CA; --no-tls serves plain HTTP only; a certificate of the
// user's that cannot be served is refused at start with exit 2.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../src/testing/temp.ts';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { type FogbankProcess, spawnFogbank, startFogbankProcess, withTimeout } from '../harness/process.ts';
import { runToEnd } from '../harness/process.ts';

const TOKEN = 'cli-tls-admin';

describe('fogbank start serves HTTPS on its port', () => {
  const started: FogbankProcess[] = [];
  after(async () => {
    for (const proc of started) await proc.stop('SIGTERM');
  });

  it('prints both addresses, makes the certificates before the banner and keeps them for the next start', { skip: skipUnless('kubectl') }, async () => {
    const dataDir = join(tempDir('cli-tls'), '.fogbank');
    const kubeconfig = join(dataDir, 'kubeconfig');
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dataDir, '--admin-token', TOKEN]);
    started.push(first);
    const https = first.url.replace(/^http:/, 'https:');
    assert.match(first.lines[0]!, new RegExp(`listening on ${first.url} and ${https} \\(store: sqlite, data: `));
    assert.ok(first.lines.includes(`  cluster over HTTPS        ${https}`), first.lines.join('\n'));
    assert.ok(readFileSync(kubeconfig, 'utf8').includes('certificate-authority-data'));
    const env = { PATH: process.env['PATH'], HOME: dataDir };
    const whoami = await runToEnd(clientPath('kubectl'), ['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], { env });
    assert.equal(whoami.stdout, 'system:admin\n', whoami.stderr);
    const ca = readFileSync(join(dataDir, 'tls', 'ca.crt'), 'utf8');
    assert.equal(await first.stop('SIGTERM'), 0);

    const second = await startFogbankProcess(['--port', '0', '--data-dir', dataDir, '--admin-token', TOKEN]);
    started.push(second);
    // Kept: the kubeconfig is complete when the banner is printed, with the same CA.
    const text = readFileSync(kubeconfig, 'utf8');
    assert.ok(text.includes(`server: ${second.url.replace(/^http:/, 'https:')}\n`), text);
    assert.ok(text.includes(`certificate-authority-data: ${Buffer.from(ca).toString('base64')}\n`));
    const cert = await runToEnd(
      clientPath('kubectl'),
      ['--kubeconfig', kubeconfig, '--context', 'fogbank-cert', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
      { env },
    );
    assert.equal(cert.stdout, 'kubernetes-admin\n', cert.stderr);
    assert.equal(await second.stop('SIGTERM'), 0);
  });

  it('serves plain HTTP only with --no-tls, and writes the plain-HTTP kubeconfig', async () => {
    const dataDir = join(tempDir('cli-tls'), '.fogbank');
    const proc = await startFogbankProcess(['--port', '0', '--data-dir', dataDir, '--admin-token', TOKEN, '--no-tls']);
    started.push(proc);
    assert.match(proc.lines[0]!, new RegExp(`listening on ${proc.url} \\(store: sqlite`));
    const text = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
    assert.ok(!text.includes('https:'), text);
    assert.equal((await fetch(`${proc.url}/healthz`)).status, 200);
    assert.equal(await proc.stop('SIGTERM'), 0);
  });

  it('refuses certificates it cannot serve, naming the flag, with exit 2', async () => {
    const dir = tempDir('cli-tls');
    writeFileSync(join(dir, 'cert.pem'), 'not a certificate\n');
    writeFileSync(join(dir, 'key.pem'), 'not a key\n');
    for (const [args, message] of [
      [
        ['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')],
        'fogbank: cannot serve HTTPS: the TLS certificate (--tls-cert) is not a PEM certificate\n',
      ],
      [
        ['--tls-cert', join(dir, 'missing.pem'), '--tls-key', join(dir, 'key.pem')],
        `fogbank: cannot read --tls-cert ${join(dir, 'missing.pem')}: no such file (see: fogbank start --help)\n`,
      ],
    ] as const) {
      const proc = spawnFogbank(['start', '--port', '0', '--ephemeral', ...args]);
      assert.equal(await withTimeout(proc.exited, 60_000, 'fogbank to refuse'), 2);
      assert.equal(proc.stderr(), message);
    }
  });
});
