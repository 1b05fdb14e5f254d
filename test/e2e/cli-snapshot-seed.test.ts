// `fogbank start --snapshot FILE`: a test seeds a server with a state saved earlier, and a file
// that is no snapshot is refused with exit 2 and one line.
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startFogbank } from '../../src/testing/fogbank.ts';
import { tempDir } from '../../src/testing/temp.ts';
import { runToEnd, startFogbankProcess } from '../harness/process.ts';
import { REPO } from '../harness/paths.ts';

const MAIN = join(REPO, 'src/cli/main.ts');
const TEMPLATE = '/compute/v1/projects/p/global/instanceTemplates/seeded';
const AUTH = { authorization: 'Bearer tok' };

describe('fogbank start --snapshot', () => {
  it('serves the state of the seed snapshot', async () => {
    const seed = join(tempDir('seed'), 'seed.fogbank');
    const source = await startFogbank({ adminToken: 'tok', operations: 'instant' });
    let expected: string;
    try {
      const created = await fetch(`${source.url}/compute/v1/projects/p/global/instanceTemplates`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'seeded', properties: { machineType: 'e2-small' } }),
      });
      assert.equal(created.status, 200);
      expected = (await (await fetch(`${source.url}${TEMPLATE}`, { headers: AUTH })).text()).replaceAll(source.url, '');
      await source.snapshots.save(createWriteStream(seed));
    } finally {
      await source.close();
    }
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', 'tok', '--log-level', 'silent', '--snapshot', seed]);
    try {
      const got = await fetch(`${server.url}${TEMPLATE}`, { headers: AUTH });
      assert.equal(got.status, 200);
      assert.equal((await got.text()).replaceAll(server.url, ''), expected);
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
  });

  it('refuses a file that is not a snapshot with exit 2 and one line', async () => {
    const file = join(tempDir('seed'), 'not-a-snapshot');
    await writeFile(file, 'plain text');
    const r = await runToEnd(process.execPath, ['--import', 'tsx', MAIN, 'start', '--ephemeral', '--port', '0', '--snapshot', file], { cwd: REPO });
    assert.deepEqual(r, { exit: 2, stdout: '', stderr: 'fogbank: cannot start from the snapshot: not a fogbank snapshot: it is not gzip data\n' });
  });
});
