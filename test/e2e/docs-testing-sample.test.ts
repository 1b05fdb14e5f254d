// docs/testing.md's `start()` sample, run as written with node:test: only its import of the
// package is pointed at the sources (library-import.test.ts shows the package name resolves).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { it } from 'node:test';
import { tempDir } from '../../src/testing/temp.ts';
import { REPO } from '../harness/paths.ts';
import { runToEnd } from '../harness/process.ts';

it("docs/testing.md's sample test passes as written", async () => {
  const page = readFileSync(join(REPO, 'docs/testing.md'), 'utf8');
  const sample = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
  assert.ok(sample?.includes("from 'fogbank'"), 'docs/testing.md has a ```ts sample importing fogbank');
  const file = join(tempDir('docs-sample'), 'sample.test.ts');
  writeFileSync(file, sample!.replace("from 'fogbank'", `from '${pathToFileURL(join(REPO, 'src/fogbank.ts')).href}'`));
  // A test run of its own: without this the child reports to the runner of this file, not to stdout.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const { exit, stdout, stderr } = await runToEnd(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], { cwd: REPO, env }, 120_000);
  assert.equal(exit, 0, `${stdout}\n${stderr}`);
  assert.match(stdout, /# pass 1\n# fail 0/);
});
