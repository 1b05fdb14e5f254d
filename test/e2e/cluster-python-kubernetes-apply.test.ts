// Debian's Python Kubernetes client (python3-kubernetes, run by /usr/bin/python3): its dynamic
// client's server-side apply with force_conflicts=True sends `force=True`, which the apiserver
// reads as true. Without force the second manager's apply is the 409 conflict.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { REPO } from '../harness/paths.ts';
import { spawnOwned, withTimeout } from '../harness/process.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { tempDir } from '../../src/testing/temp.ts';

const TOKEN = 'python-kubernetes-e2e-admin';
const SCRIPT = join(REPO, 'test/fixtures/clients/kubernetes-apply.py');

describe('python3-kubernetes dynamic client against fogbank', { skip: skipUnless('python3-kubernetes') }, () => {
  let server: RunningFogbank;
  before(async () => {
    server = await startFogbank({ adminToken: TOKEN });
  });
  after(async () => server.close());

  it('server-side applies with force_conflicts=True where the same apply without it is a 409', async () => {
    const cache = join(tempDir('python-discovery'), 'discovery.json');
    // PYTHONNOUSERSITE and a clean PYTHONPATH keep it to Debian's packages.
    const python = spawnOwned(clientPath('python3-kubernetes'), [SCRIPT, server.url, TOKEN, cache], {
      env: { PATH: process.env['PATH'], HOME: tempDir('python-home'), PYTHONNOUSERSITE: '1' },
    });
    const exit = await withTimeout(python.exited, 120_000, `the Python client to finish; stderr:\n${python.stderr()}`);
    assert.equal(exit, 0, python.stderr());
    assert.deepEqual(JSON.parse(python.lines.at(-1) ?? 'null'), {
      conflict: { status: 409, reason: 'Conflict' },
      verbs: ['list'],
      managers: ['second'],
    });
  });
});
