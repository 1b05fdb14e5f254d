// The npm package as a user gets it (issue 41): the tarball `npm pack` makes, installed from a
// directory outside the checkout into an empty global prefix (`npm install -g`), run by `npx`,
// and added to a fresh project (`npm install --save-dev`) whose test imports `start` and passes
// a strict TypeScript check. Each then serves kubectl and the googleapis Gmail client. Installed
// with install scripts blocked (`--ignore-scripts`), `fogbank start` says what to allow. The CI
// action's composite steps run as a runner runs them, installing the tarball themselves.
// One pack and three installs (run side by side) serve every test of the file; better-sqlite3's
// install script takes the binding this checkout compiled (test/harness/package.ts).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, it } from 'node:test';
import { auth, gmail } from '@googleapis/gmail';
import { tempDir } from '../../src/testing/temp.ts';
import { skipUnless } from '../harness/clients.ts';
import { findKubectl } from '../harness/kubectl.ts';
import { actionOutputs, readGithubFile, runCompositeAction } from '../harness/github-action.ts';
import { localPrebuilds, npm, npmEnv, packFogbank, type PackedFogbank, withNpxCacheCleaned } from '../harness/package.ts';
import { REPO } from '../harness/paths.ts';
import { runToEnd, spawnOwned, type Spawned } from '../harness/process.ts';

/** PACKED_BYTES_BOUND bounds the .tgz (4.5 MB when written: bundles with their source maps, declarations, the console). */
const PACKED_BYTES_BOUND = 6 * 1024 * 1024;
/**
 * ENTRY_BOUND bounds its entries: 425 when written, 495 once the SMTP listener, the WAF worker, the
 * workload simulation and the compute resources added their lazily loaded chunks and declarations;
 * `npm pack` of `dist/` whole carried 1,874. A checkout that built many commits keeps their chunks
 * on disk for running servers, which `dist/chunks/.npmignore` leaves out; the margin is for what a
 * build beside the pack adds meanwhile.
 */
const ENTRY_BOUND = 800;

const repoVersions = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const typescriptVersion = repoVersions.devDependencies['typescript']!;
const typesNodeVersion = repoVersions.devDependencies['@types/node']!;

let packed: PackedFogbank;
let prefix: string;
let blockedPrefix: string;
let project: string;
let installLog: string;
let prebuilds: string;

before(async () => {
  packed = await packFogbank();
  console.log(`fogbank tarball: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} entries`);
  prebuilds = await localPrebuilds();
  prefix = tempDir('prefix');
  blockedPrefix = tempDir('prefix-blocked');
  project = tempDir('project');
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'my-service', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const [global] = await Promise.all([
    npm(['install', '--global', '--prefix', prefix, packed.tarball], prefix, npmEnv(prefix, prebuilds)),
    npm(['install', '--save-dev', packed.tarball, `typescript@${typescriptVersion}`, `@types/node@${typesNodeVersion}`], project, npmEnv(project, prebuilds)),
    // As a package manager that blocks dependency scripts (npm 12, pnpm 10) leaves it: better-sqlite3 unbuilt.
    npm(['install', '--global', '--prefix', blockedPrefix, '--ignore-scripts', packed.tarball], blockedPrefix, npmEnv(blockedPrefix)),
  ]);
  installLog = global.stderr;
});

/** served is `fogbank start` from an installed package, once it listens, with its data directory. */
async function serve(command: string, args: readonly string[], cwd: string): Promise<{ fogbank: Spawned; url: string; dataDir: string }> {
  const dataDir = join(tempDir('package-data'), 'data');
  // npx installs the package first: better-sqlite3 takes the same binary as the other installs.
  const fogbank = spawnOwned(command, [...args, '--port', '0', '--data-dir', dataDir], { cwd, env: npmEnv(cwd, prebuilds), detached: true });
  const [, url] = await fogbank.waitForLine(/listening on (http:\/\/\S+)/, 120_000);
  return { fogbank, url: url!, dataDir };
}

/** kubectlNamespaces runs the real kubectl with the kubeconfig fogbank wrote (HTTPS, its CA, the admin token). */
async function kubectlNamespaces(dataDir: string): Promise<string> {
  const home = tempDir('package-kubectl');
  const r = await runToEnd(findKubectl(), ['get', 'namespaces', '-o', 'name'], {
    env: { PATH: process.env['PATH'], HOME: home, KUBECONFIG: join(dataDir, 'kubeconfig') },
  });
  assert.equal(r.exit, 0, r.stderr);
  return r.stdout;
}

/** gmailRoundTrip sends a message with the googleapis Gmail client and finds it in the recipient's mailbox. */
async function gmailRoundTrip(url: string, token: string): Promise<void> {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  const client = gmail({ version: 'v1', rootUrl: `${url}/`, auth: oauth, retry: false } as never);
  const raw = Buffer.from('From: ann@example.com\r\nTo: bob@example.com\r\nSubject: from the package\r\n\r\nhello\r\n').toString('base64url');
  await client.users.messages.send({ userId: 'ann@example.com', requestBody: { raw } });
  const listed = await client.users.messages.list({ userId: 'bob@example.com' });
  assert.equal(listed.data.messages?.length, 1, JSON.stringify(listed.data));
}

describe('the npm package as a user installs it', () => {
  it('carries only what runs, with its license, in a bounded size', () => {
    const paths = packed.files.map((file) => file.path);
    for (const needed of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/fogbank.js',
      'dist/fogbank.mjs',
      'dist/index.mjs',
      'dist/types/fogbank.d.ts',
      'dist/console/manifest.json',
    ])
      assert.ok(paths.includes(needed), `${needed} is not in the tarball`);
    assert.ok(
      paths.some((path) => /^dist\/console\/main-[A-Z0-9]+\.js$/.test(path)),
      'the console page is not in the tarball',
    );
    const strays = paths.filter((path) => /^(src|test|bench|docs|scripts)\//.test(path) || /\.test\.|\.ts$/.test(path.replace(/\.d\.ts$/, '')));
    assert.deepEqual(strays, []);
    assert.match(readFileSync(join(REPO, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/);
    for (const bin of ['bin/fogbank.js', 'bin/protoc-gen-fogbank.js'])
      assert.equal(packed.files.find((file) => file.path === bin)?.mode, 0o755, `${bin} is not executable`);
    assert.ok(packed.size <= PACKED_BYTES_BOUND, `the tarball is ${packed.size} bytes, over ${PACKED_BYTES_BOUND}`);
    assert.ok(packed.entryCount <= ENTRY_BOUND, `the tarball has ${packed.entryCount} entries, over ${ENTRY_BOUND}`);
  });

  it('npm names the install scripts a blocking npm would skip, and they are the known ones', () => {
    // npm 11 runs them and warns; npm 12 and --strict-allow-scripts refuse (README says what to allow).
    assert.match(installLog, /install-scripts .*better-sqlite3@[\d.]+ \(install: prebuild-install \|\| node-gyp rebuild --release\)/);
    // Nothing else runs at install time: fogbank's own `prepare` (not run for a tarball),
    // better-sqlite3 (its prebuilt binary or a compile, docs/distribution.md), koffi (binaries in
    // its npm package) and esbuild (tsx's; its binary is the registry's @esbuild/<platform>
    // package). A new dependency with an install script, which might download, fails here.
    const scripted = [...installLog.matchAll(/^npm warn install-scripts {3}(\S+)@[\d.]+ \(/gm)].map((match) => match[1]).sort();
    assert.deepEqual(scripted, ['better-sqlite3', 'esbuild', 'fogbank', 'koffi'], installLog);
  });

  it('installed with install scripts blocked, `fogbank start` says what to allow, and --ephemeral still serves', async () => {
    const fogbank = join(blockedPrefix, 'bin/fogbank');
    const dataDir = join(tempDir('package-blocked'), 'data');
    const refused = await runToEnd(fogbank, ['start', '--port', '0', '--data-dir', dataDir], { cwd: blockedPrefix, env: npmEnv(blockedPrefix) }, 60_000);
    assert.equal(refused.exit, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /^fogbank: Could not locate the bindings file\. Tried:\n → .*\/node_modules\/better-sqlite3\/build\/better_sqlite3\.node$/m);
    assert.match(
      refused.stderr,
      /^better-sqlite3's install script did not run \(package managers that block install scripts skip it\), so the SQLite store cannot open\.$/m,
    );
    assert.match(refused.stderr, /^Allow it and reinstall: npm --allow-scripts=better-sqlite3 .*pnpm approve-builds.*$/m);
    assert.match(
      refused.stderr,
      /^or run `npm rebuild better-sqlite3` where it is installed; or start without SQLite: --ephemeral, --store memory or --store postgres:\/\/…$/m,
    );
    const ephemeral = spawnOwned(fogbank, ['start', '--port', '0', '--ephemeral'], { cwd: blockedPrefix, env: npmEnv(blockedPrefix) });
    try {
      const [, url] = await ephemeral.waitForLine(/listening on (http:\/\/\S+)/, 60_000);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      assert.equal(await ephemeral.stop('SIGTERM'), 0, ephemeral.stderr());
    }
  });

  it('`npm install -g` then `fogbank start` serves kubectl and the Gmail API', { skip: skipUnless('kubectl') }, async () => {
    const { fogbank, url, dataDir } = await serve(join(prefix, 'bin/fogbank'), ['start'], prefix);
    try {
      assert.match(await kubectlNamespaces(dataDir), /namespace\/default/);
      await gmailRoundTrip(url, readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    } finally {
      assert.equal(await fogbank.stop('SIGTERM'), 0, fogbank.stderr());
    }
  });

  it('`npx --yes ./fogbank-*.tgz start` serves kubectl', { skip: skipUnless('kubectl') }, async () => {
    // npx takes a tarball by a relative path (`./…`); an absolute one would be run as a command.
    const tarballName = `./${basename(packed.tarball)}`;
    await withNpxCacheCleaned(async () => {
      const { fogbank, url, dataDir } = await serve('npx', ['--yes', tarballName, 'start'], dirname(packed.tarball));
      try {
        assert.match(await kubectlNamespaces(dataDir), /namespace\/kube-system/);
      } finally {
        // Ctrl-C in a terminal signals the whole group: npx (which runs fogbank through a shell
        // that forwards nothing, and so ends by the signal itself or with 0) and fogbank, which stops.
        const exit = await fogbank.stop('SIGINT');
        assert.ok(exit === 0 || exit === 'SIGINT', `npx ended with ${exit}: ${fogbank.stderr()}`);
        await assert.rejects(fetch(`${url}/healthz`), 'fogbank still serves after Ctrl-C');
      }
    });
  });

  it("a project's test imports `start` from 'fogbank', passes strict tsc and runs", async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, verbatimModuleSyntax: true, types: ['node'], outDir: 'out' }, include: ['fogbank.test.ts'] }, null, 2)}\n`,
    );
    writeFileSync(
      join(project, 'fogbank.test.ts'),
      [
        "import { start, type Fogbank } from 'fogbank';",
        '',
        'const fogbank: Fogbank = await start();',
        'const env: Record<string, string> = fogbank.env();',
        'const answer = await fetch(`${fogbank.url}/api/v1/namespaces/default`, { headers: { authorization: `Bearer ${fogbank.adminToken}` } });',
        'const namespace = (await answer.json()) as { metadata: { name: string } };',
        'console.log(JSON.stringify({ name: namespace.metadata.name, kubeconfig: env["KUBECONFIG"] !== undefined }));',
        'await fogbank.stop();',
        '',
      ].join('\n'),
    );
    const env = npmEnv(project);
    const tsc = await runToEnd(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: project, env }, 180_000);
    assert.equal(tsc.exit, 0, tsc.stdout + tsc.stderr);
    const run = await runToEnd(process.execPath, ['out/fogbank.test.js'], { cwd: project, env });
    assert.equal(run.exit, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { name: 'default', kubeconfig: true });
    // The negative case: the same project with a wrong option is refused by the package's types.
    writeFileSync(join(project, 'fogbank.test.ts'), "import { start } from 'fogbank';\nawait start({ port: 'eighty' });\n");
    const refused = await runToEnd(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: project, env }, 180_000);
    assert.notEqual(refused.exit, 0);
    assert.match(refused.stdout, /fogbank\.test\.ts.*error TS2322: Type 'string' is not assignable to type 'number'/);
  });
  it('the CI action installs the package, starts it, exports its clients, and on a failed job collects journal, snapshot and log', async () => {
    // action.yml's and collect/action.yml's steps run as the runner runs them (test/harness/github-action.ts):
    // inputs through the steps' INPUT_* env mapping, GITHUB_ENV and GITHUB_OUTPUT files, RUNNER_TEMP.
    const runner = tempDir('runner');
    const githubEnv = join(runner, 'github-env');
    const githubOutput = join(runner, 'github-output');
    // The runner's environment; npm takes better-sqlite3's binary as the other installs do.
    const base = { ...npmEnv(runner, prebuilds), RUNNER_TEMP: runner, GITHUB_ENV: githubEnv, GITHUB_OUTPUT: githubOutput };
    writeFileSync(githubEnv, '');
    writeFileSync(githubOutput, '');
    const started = await runCompositeAction(
      REPO,
      { package: packed.tarball, port: '0', 'admin-token': 'ci-token', args: '--operations instant' },
      base,
      300_000,
    );
    assert.equal(started.exit, 0, started.stdout + started.stderr);
    assert.match(started.stdout, /^::add-mask::ci-token$/m);
    assert.match(started.stdout, /^installing \/.*\/fogbank-[\d.]+\.tgz$/m);
    const jobEnv = readGithubFile(githubEnv);
    const outputs = actionOutputs(REPO, readGithubFile(githubOutput));
    assert.equal(jobEnv['FOGBANK_TOKEN'], 'ci-token');
    assert.deepEqual(outputs, { url: jobEnv['FOGBANK_URL'], token: 'ci-token', kubeconfig: jobEnv['KUBECONFIG'], 'data-dir': join(runner, 'fogbank/data') });
    assert.equal(jobEnv['CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE'], `${jobEnv['FOGBANK_URL']}/compute/v1/`);
    assert.equal(readFileSync(jobEnv['CLOUDSDK_AUTH_ACCESS_TOKEN_FILE']!, 'utf8').trim(), 'ci-token');
    // The job's steps, with the environment the runner gives them: a kubectl call that works,
    // then one that fails the job (a namespace that does not exist).
    const stepEnv = { PATH: process.env['PATH'], HOME: runner, ...jobEnv };
    const created = await runToEnd(findKubectl(), ['create', 'namespace', 'from-the-job'], { env: stepEnv });
    assert.equal(created.exit, 0, created.stderr);
    const failing = await runToEnd(findKubectl(), ['get', 'namespace', 'not-there'], { env: stepEnv });
    assert.notEqual(failing.exit, 0);
    // The job failed: the workflow's `if: failure()` step runs the collect action.
    writeFileSync(githubOutput, '');
    const collected = await runCompositeAction(join(REPO, 'collect'), { path: join(runner, 'evidence') }, { ...base, ...jobEnv }, 60_000);
    assert.equal(collected.exit, 0, collected.stdout + collected.stderr);
    const folder = actionOutputs(join(REPO, 'collect'), readGithubFile(githubOutput))['path']!;
    assert.equal(folder, join(runner, 'evidence'));
    const journal = JSON.stringify(JSON.parse(readFileSync(join(folder, 'requests.json'), 'utf8')));
    assert.match(journal, /namespaces\/not-there/);
    assert.match(journal, /404/);
    // The snapshot (gzip frames, src/store/snapshot-format.ts) holds the state the job made.
    assert.match(gunzipSync(readFileSync(join(folder, 'fogbank.snapshot'))).toString('utf8'), /"from-the-job"/);
    assert.match(readFileSync(join(folder, 'fogbank.log'), 'utf8'), /listening on http:\/\//);
    // collect stopped fogbank: its address answers no more.
    await assert.rejects(fetch(`${jobEnv['FOGBANK_URL']}/healthz`));
  });
});
