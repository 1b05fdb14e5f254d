// Every ```sh block of README.md and docs/*.md, run as written. The word after `sh` says how:
//   (none)        run in a scratch directory that links the checkout (outputs stay out of it)
//   with-fogbank  run after starting fogbank and applying the gcloud lines its banner prints
//   serves        a command that serves until Ctrl-C: wait for `listening on`, send SIGINT, expect 0
//   ci            `npm ci` and `npm ci && npm test`: .ci/run runs them on a fresh clone (running
//                 them here would reinstall the checkout and recurse into this suite)
//   bench         benchmarks: measured by hand, not run by the suite; checked to name real scripts
//   replicas      steps that need a PostgreSQL server of the reader's: test/e2e/postgres-replicas.test.ts
//                 performs the same steps against a real temporary PostgreSQL (the equivalent
//                 script); here every `fogbank start` line of the block must parse as written
//   package       installing the packed tarball: test/e2e/package-install.test.ts performs those
//                 installs (npm install -g, npx, npm install --save-dev) from an empty prefix and project
//   container     building and running the image: test/e2e/container-image.test.ts does (podman)
//   action        the CI action's scripts: test/e2e/package-install.test.ts runs them as a runner does
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseStartArgs } from '../../src/cli/args.ts';
import { skipUnless } from '../harness/clients.ts';
import { gcloudEnv } from '../harness/gcloud.ts';
import { REPO } from '../harness/paths.ts';
import { runToEnd, spawnOwned, startFogbankProcess } from '../harness/process.ts';
import { tempDir } from '../../src/testing/temp.ts';

/** Block is one fenced ```sh block. */
interface Block {
  readonly file: string;
  readonly line: number;
  readonly mode: string;
  readonly body: string;
}

/** shBlocks extracts the ```sh blocks of a markdown file. */
function shBlocks(file: string): Block[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    if (open[1] === 'sh') blocks.push({ file, line: start + 1, mode: open[2]!.trim() || 'run', body: `${body.join('\n')}\n` });
  }
  return blocks;
}

const FILES = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const BLOCKS = FILES.flatMap(shBlocks);

/** PERFORMED_BY names, for the install and image blocks, the end-to-end test that performs them and the commands it performs. */
const PERFORMED_BY: Readonly<Record<string, { readonly test: string; readonly commands: RegExp }>> = {
  package: {
    test: 'test/e2e/package-install.test.ts',
    commands:
      /^(npm pack|npm install --global \.\/fogbank-[\d.]+\.tgz( && fogbank start .*)?|npx --yes \.\/fogbank-[\d.]+\.tgz start.*|npm install --save-dev \.\/fogbank-[\d.]+\.tgz)$/,
  },
  action: {
    test: 'test/e2e/package-install.test.ts',
    commands: /^((INPUT_[A-Z_]+=\S+ )+GITHUB_(ENV|OUTPUT)=\S+ (GITHUB_OUTPUT=\S+ )?node action\/(start|collect)\.mjs|set -a && \. \.\/github-env && set \+a)$/,
  },
  container: {
    test: 'test/e2e/container-image.test.ts',
    commands:
      /^(npm pack|podman build --format docker -t fogbank \.|podman run --rm -p 8780:8780 -v fogbank-state:\/var\/lib\/fogbank( -e FOGBANK_[A-Z_]+=\S+)* fogbank.*)$/,
  },
};

/** sandbox is a scratch directory that links what a reader's checkout has, so commands run as written but write here. */
function sandbox(): string {
  const dir = tempDir('docs');
  for (const entry of ['bin', 'src', 'node_modules', 'package.json', 'scripts', 'tsconfig.json', 'bench']) symlinkSync(join(REPO, entry), join(dir, entry));
  return dir;
}

/** shellWords splits a command line's arguments as the shell would for plain words and quoted strings (no expansions). */
function shellWords(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** bash runs a block with bash -euo pipefail in dir. */
function bash(body: string, dir: string, env: NodeJS.ProcessEnv = process.env) {
  return runToEnd('bash', ['-euo', 'pipefail', '-c', body], { cwd: dir, env }, 170_000);
}

describe('documentation commands', () => {
  it('every block says how it is checked', () => {
    assert.ok(BLOCKS.length >= 6, `found only ${BLOCKS.length} sh blocks`);
    for (const block of BLOCKS)
      assert.ok(
        ['run', 'with-fogbank', 'serves', 'ci', 'bench', 'replicas', ...Object.keys(PERFORMED_BY)].includes(block.mode),
        `${block.file}:${block.line}: unknown mode '${block.mode}'`,
      );
  });

  for (const block of BLOCKS) {
    const name = `${block.file}:${block.line} (${block.mode}): ${block.body.split('\n')[0]}`;
    switch (block.mode) {
      case 'run':
        it(name, async () => {
          const r = await bash(block.body, sandbox());
          assert.equal(r.exit, 0, `${r.stdout}\n${r.stderr}`);
        });
        break;
      case 'with-fogbank':
        it(name, { skip: skipUnless('gcloud') }, async () => {
          const dir = sandbox();
          const server = await startFogbankProcess(['--port', '0', '--data-dir', join(dir, '.fogbank')], { env: { ...process.env, TSX_DISABLE_CACHE: '1' } });
          try {
            const setup = server.lines.filter((line) => line.startsWith('      gcloud config set ')).map((line) => line.trim());
            assert.equal(setup.length, 2, server.lines.join('\n'));
            const env = gcloudEnv(tempDir('docs-gcloud'));
            const r = await bash(`${setup.join('\n')}\n${block.body}`, dir, env);
            assert.equal(r.exit, 0, `${r.stdout}\n${r.stderr}`);
          } finally {
            assert.equal(await server.stop('SIGTERM'), 0);
          }
        });
        break;
      case 'serves':
        it(name, async () => {
          const dir = sandbox();
          const served = spawnOwned('bash', ['-c', `exec ${block.body.trim()}`], { cwd: dir, detached: true });
          await served.waitForLine(/listening on http:\/\//, 120_000);
          assert.equal(await served.stop('SIGINT'), 0, served.stderr());
        });
        break;
      case 'ci':
        it(name, () => {
          const ci = readFileSync(join(REPO, '.ci/run'), 'utf8');
          const last = ci.trimEnd().split('\n').at(-1);
          assert.equal(last, 'npm ci && npm test');
          assert.ok(['npm ci', 'npm ci && npm test'].includes(block.body.trim()), block.body);
        });
        break;
      case 'replicas':
        it(name, () => {
          assert.ok(existsSync(join(REPO, 'test/e2e/postgres-replicas.test.ts')), 'the equivalent script is gone');
          for (const line of block.body.split('\n')) {
            const start = /fogbank start (.*?)\s*&?$/.exec(line);
            if (start !== null) assert.doesNotThrow(() => parseStartArgs(shellWords(start[1]!)), line);
          }
        });
        break;
      case 'package':
      case 'container':
      case 'action':
        it(name, () => {
          const performer = PERFORMED_BY[block.mode]!;
          assert.ok(existsSync(join(REPO, performer.test)), `${performer.test}, which performs this block, is gone`);
          for (const line of block.body.trim().split('\n')) {
            assert.ok(performer.commands.test(line), `${performer.test} performs no such command: ${line}`);
            for (const start of line.matchAll(/fogbank(?:-[\d.]+\.tgz)? start((?: --?[\w-]+(?: [^-&\s]\S*)?)*)/g))
              assert.doesNotThrow(() => parseStartArgs(shellWords(start[1]!)), line);
          }
        });
        break;
      case 'bench':
        it(name, () => {
          const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
          for (const line of block.body.trim().split('\n')) {
            const command = line.replace(/\s+#.*$/, '').trim();
            const npmRun = /^npm run (\S+)$/.exec(command);
            const tsx = /^npx tsx (bench\/\S+\.ts)$/.exec(command);
            assert.ok(npmRun !== null || tsx !== null, `not a benchmark command: ${command}`);
            if (npmRun !== null) assert.ok(scripts[npmRun[1]!] !== undefined, `no npm script ${npmRun[1]}`);
            if (tsx !== null) assert.ok(existsSync(join(REPO, tsx[1]!)), `no file ${tsx[1]}`);
          }
        });
        break;
    }
  }
});
