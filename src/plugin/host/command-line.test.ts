import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOST_USAGE, runHostCommand } from './command-line.ts';

async function host(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runHostCommand(argv, { cwd: '/nonexistent', stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

test('usage errors name the problem in protoc words and exit 1', async () => {
  assert.deepEqual(await host(['--descriptor_set_in=x.pb', '--a_out=out']), { code: 1, stdout: '', stderr: 'Missing input file.\n' });
  assert.deepEqual(await host(['--descriptor_set_in=x.pb', 'a.proto']), { code: 1, stdout: '', stderr: 'Missing output directives.\n' });
  assert.deepEqual(await host(['--a_out=out', 'a.proto']), { code: 1, stdout: '', stderr: 'Missing --descriptor_set_in.\n' });
  assert.deepEqual(await host(['--bogus=1']), { code: 1, stdout: '', stderr: 'Unknown flag: --bogus\n' });
  assert.deepEqual(await host(['--compat=gcc']), { code: 1, stdout: '', stderr: 'Unknown --compat value: gcc (expected protoc, protoc-legacy, buf)\n' });
  assert.deepEqual(await host(['--descriptor_set_in=x.pb', '--a_out=out', 'a.proto']), { code: 1, stdout: '', stderr: 'x.pb: No such file or directory\n' });
});

test('--help prints the usage', async () => {
  assert.deepEqual(await host(['--help']), { code: 0, stdout: HOST_USAGE, stderr: '' });
});
