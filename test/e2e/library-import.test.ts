// README's "Using fogbank from code" block, run as a user's program would run it: the package
// imported by its name (Node resolves a package's own name from inside it), from the library that
// `npm ci` builds into dist/.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { REPO } from '../harness/paths.ts';
import { runToEnd } from '../harness/process.ts';

/** readmeSnippet is the README's one ```ts block. */
function readmeSnippet(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const match = /```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(match?.[1] !== undefined, 'README has a ```ts block');
  return match[1];
}

it("README's startFogbank example runs as written against the built package", async () => {
  assert.ok(existsSync(join(REPO, 'dist/index.mjs')), 'dist/index.mjs is missing: run npm ci (or npm run build)');
  const program = `${readmeSnippet()}\nconsole.log(JSON.stringify({ url: fogbank.url, token: fogbank.adminToken }));\n`;
  // The example closes fogbank before the extra line runs; the line only reads what it printed.
  const { exit, stdout, stderr } = await runToEnd(process.execPath, ['--input-type=module', '-e', program], { cwd: REPO });
  assert.equal(exit, 0, stderr);
  const [printed, reported] = stdout.trim().split('\n');
  const { url, token } = JSON.parse(reported ?? '{}') as { url: string; token: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(printed, `${url} ${token}`);
});
