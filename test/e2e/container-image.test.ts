// fogbank's container image (issue 41), built from the root Containerfile and run with Debian's
// podman as a user would: the package from `npm pack` installed in a build stage on the Node base
// (made from Debian packages, test/harness/podman.ts), the port published, the health check
// passing, kubectl and curl answered, state kept in the volume across containers, and SIGTERM
// ending it with exit code 0 inside the grace period; and the same image started by Testcontainers
// through podman's Docker-compatible socket, as docs/distribution.md's recipe says.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../src/testing/temp.ts';
import { Kubectl } from '../harness/kubectl.ts';
import { localPrebuilds, packFogbank } from '../harness/package.ts';
import { REPO } from '../harness/paths.ts';
import { runToEnd } from '../harness/process.ts';
import { ensureNodeBaseImage, NODE_BASE_IMAGE, podman, startDockerApiSocket } from '../harness/podman.ts';

/** GRACE_SECONDS is the stop timeout: podman sends SIGTERM, then SIGKILL (exit 137) after this. */
const GRACE_SECONDS = 10;

const suffix = randomBytes(4).toString('hex');
const image = `localhost/fogbank-test:${suffix}`;
const volume = `fogbank-test-state-${suffix}`;
const containers: string[] = [];
/** danglingBefore are the untagged images there before the build: the build stage's image, left untagged by it, is removed after. */
let danglingBefore: Set<string> | undefined;

/** npmConfigFile is a file-valued setting of this machine's npm (`npm config get`), if it names a file that exists. */
async function npmConfigFile(key: string): Promise<string | undefined> {
  const answer = await runToEnd('npm', ['config', 'get', key]);
  const value = answer.stdout.trim();
  return answer.exit === 0 && value !== '' && value !== 'null' && value !== 'undefined' && existsSync(value) ? value : undefined;
}

/** danglingImages lists the untagged images' ids. */
async function danglingImages(): Promise<string[]> {
  return (await podman(['images', '--quiet', '--no-trunc', '--filter', 'dangling=true'])).stdout.split('\n').filter((id) => id !== '');
}

before(async () => {
  await ensureNodeBaseImage();
  const [packed, prebuilds] = await Promise.all([packFogbank(), localPrebuilds()]);
  // The build context a user has after `npm pack` in the checkout: the tarball (and here the
  // better-sqlite3 binary this checkout compiled, as the folder prebuild-install reads).
  const context = tempDir('image-context');
  cpSync(packed.tarball, join(context, 'fogbank-0.1.0.tgz'));
  cpSync(prebuilds, join(context, 'prebuilds'), { recursive: true });
  assert.ok(readdirSync(join(context, 'prebuilds')).length === 1);
  danglingBefore = new Set(await danglingImages());
  const npmCache = process.env['npm_config_cache'] ?? join(process.env['HOME'] ?? '/root', '.npm');
  const npmCafile = await npmConfigFile('cafile');
  await podman(
    [
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      '--build-arg',
      `BUILD_IMAGE=${NODE_BASE_IMAGE}`,
      '--build-arg',
      `NODE_IMAGE=${NODE_BASE_IMAGE}`,
      '--build-arg',
      'npm_config_better_sqlite3_local_prebuilds=prebuilds',
      '--build-arg',
      'npm_config_prefer_offline=true',
      // The machine's npm cache, read through an overlay: what the build writes there is thrown away.
      '--volume',
      `${npmCache}:/root/.npm:O`,
      // The CA file this machine's npm trusts, if it sets one (a registry behind its own CA): a package the cache lacks is fetched as npm here would.
      ...(npmCafile === undefined
        ? []
        : ['--volume', `${npmCafile}:/etc/fogbank-build/npm-ca.crt:ro`, '--build-arg', 'npm_config_cafile=/etc/fogbank-build/npm-ca.crt']),
      '--file',
      join(REPO, 'Containerfile'),
      '--tag',
      image,
      context,
    ],
    { timeoutMs: 600_000 },
  );
  await podman(['volume', 'create', volume]);
});

after(async () => {
  for (const name of containers) await podman(['rm', '--force', '--time', '0', name], { allowFailure: true });
  await podman(['volume', 'rm', '--force', volume], { allowFailure: true });
  await podman(['rmi', '--force', image], { allowFailure: true });
  if (danglingBefore !== undefined)
    for (const id of await danglingImages()) if (!danglingBefore.has(id)) await podman(['rmi', '--force', id], { allowFailure: true });
});

/** runContainer starts the image on the state volume with its port published on a free loopback port. */
async function runContainer(): Promise<{ name: string; url: string }> {
  const name = `fogbank-test-${suffix}-${containers.length}`;
  containers.push(name);
  await podman(['run', '--detach', '--name', name, '--publish', '127.0.0.1::8780', '--volume', `${volume}:/var/lib/fogbank`, image]);
  const port = (await podman(['port', name, '8780'])).stdout.trim().split(':').at(-1);
  return { name, url: `http://127.0.0.1:${port}` };
}

/** waitHealthy runs the image's own HEALTHCHECK (podman healthcheck run) until it passes, bounded. */
async function waitHealthy(name: string): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const r = await podman(['healthcheck', 'run', name], { allowFailure: true });
    if (r.exit === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const logs = await podman(['logs', name], { allowFailure: true });
  assert.fail(`${name} never became healthy:\n${logs.stdout}\n${logs.stderr}`);
}

/** stopWithSigterm stops a container as a runtime does (SIGTERM, SIGKILL after the grace period) and returns its exit code. */
async function stopWithSigterm(name: string): Promise<number> {
  await podman(['stop', '--time', String(GRACE_SECONDS), name], { timeoutMs: 60_000 });
  return Number((await podman(['inspect', '--format', '{{.State.ExitCode}}', name])).stdout.trim());
}

describe('the container image', () => {
  it('declares its port, state volume, health check and non-root user', async () => {
    const [config] = JSON.parse((await podman(['image', 'inspect', image])).stdout) as [
      {
        Config: { User: string; ExposedPorts: Record<string, unknown>; Volumes: Record<string, unknown>; Env: string[] };
        Healthcheck?: { Test: string[] } | null;
      },
    ];
    assert.equal(config.Config.User, 'node');
    assert.deepEqual(Object.keys(config.Config.ExposedPorts), ['8780/tcp']);
    assert.deepEqual(Object.keys(config.Config.Volumes), ['/var/lib/fogbank']);
    // Kept because the build used --format docker (podman's OCI format drops it).
    assert.match(config.Healthcheck?.Test.join(' ') ?? '', /\/healthz/);
    assert.ok(config.Config.Env.includes('FOGBANK_HOST=0.0.0.0'), config.Config.Env.join('\n'));
  });

  it('serves curl and kubectl, keeps state in its volume across containers, and stops on SIGTERM with 0', async () => {
    const first = await runContainer();
    await waitHealthy(first.name);
    const health = await runToEnd('curl', ['-sS', '-w', '\n%{http_code}', `${first.url}/healthz`]);
    assert.equal(health.exit, 0, health.stderr);
    assert.match(health.stdout, /\n200\n?$/);
    const token = (await podman(['exec', first.name, 'cat', '/var/lib/fogbank/admin-token'])).stdout.trim();
    const kubectl = new Kubectl(first.url, token);
    const created = await kubectl.run(['create', 'namespace', 'kept-across-restarts']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(await stopWithSigterm(first.name), 0, (await podman(['logs', first.name])).stderr);

    const second = await runContainer();
    await waitHealthy(second.name);
    // The same admin token (kept in the volume) and the namespace made by the first container.
    assert.equal((await podman(['exec', second.name, 'cat', '/var/lib/fogbank/admin-token'])).stdout.trim(), token);
    const got = await new Kubectl(second.url, token).run(['get', 'namespace', 'kept-across-restarts', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout.trim(), 'namespace/kept-across-restarts');
    assert.equal(await stopWithSigterm(second.name), 0);
  });

  it("Testcontainers' GenericContainer starts it (docs/distribution.md's recipe) through podman's Docker-compatible socket", async () => {
    // testcontainers 11.x (undici 7) runs on Node 20; its reaper (Ryuk) is an image from Docker Hub,
    // which no registry here serves, so it is disabled and the container removed by after() as well.
    const socket = await startDockerApiSocket();
    const saved = { DOCKER_HOST: process.env['DOCKER_HOST'], TESTCONTAINERS_RYUK_DISABLED: process.env['TESTCONTAINERS_RYUK_DISABLED'] };
    process.env['DOCKER_HOST'] = socket.dockerHost;
    process.env['TESTCONTAINERS_RYUK_DISABLED'] = 'true';
    const name = `fogbank-test-${suffix}-testcontainers`;
    containers.push(name);
    try {
      const { GenericContainer, Wait } = await import('testcontainers');
      // The recipe as documented, with this test's image and a name for after()'s cleanup. The
      // default pull policy pulls only an image that is not there; a pull would fail here.
      const container = await new GenericContainer(image)
        .withName(name)
        .withExposedPorts(8780)
        .withEnvironment({ FOGBANK_ADMIN_TOKEN: 'test-token', FOGBANK_OPERATIONS: 'instant' })
        .withCommand(['start', '--ephemeral'])
        .withWaitStrategy(Wait.forHttp('/healthz', 8780).forStatusCode(200))
        .start();
      const url = `http://${container.getHost()}:${container.getMappedPort(8780)}`;
      try {
        const kubectl = new Kubectl(url, 'test-token');
        const created = await kubectl.run(['create', 'namespace', 'from-testcontainers']);
        assert.equal(created.code, 0, created.stderr);
        const got = await kubectl.run(['get', 'namespace', 'from-testcontainers', '-o', 'name']);
        assert.equal(got.stdout.trim(), 'namespace/from-testcontainers', got.stderr);
      } finally {
        await container.stop();
      }
      // Stopped and removed, as Testcontainers does.
      assert.equal((await podman(['container', 'exists', name], { allowFailure: true })).exit, 1);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await socket.stop();
    }
  });
});
