// Debian's podman as the container tests run it: as root with runc, cgroupfs and no default
// ulimits (crun fails on this kind of machine on cgroups and rlimits), from a containers.conf of
// the test's own (CONTAINERS_CONF; /etc is never edited). No registry is reachable: the Node base
// image is made from Debian's packages by scripts/node-base-image.sh and kept under its tag.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../../src/testing/temp.ts';
import { REPO } from './paths.ts';
import { runToEnd, spawnOwned, type Exit } from './process.ts';

/** CONTAINERS_CONF is the settings podman runs with here. */
export const CONTAINERS_CONF = `[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
`;

/** NODE_BASE_IMAGE is the Debian Node 20 base the image builds on, made once per machine. */
export const NODE_BASE_IMAGE = 'localhost/fogbank-node-base:20-bookworm';

let podmanEnvironment: NodeJS.ProcessEnv | undefined;

/** podmanEnv is the environment podman runs in (its containers.conf written once per test process). */
export function podmanEnv(): NodeJS.ProcessEnv {
  if (podmanEnvironment === undefined) {
    const conf = join(tempDir('podman'), 'containers.conf');
    writeFileSync(conf, CONTAINERS_CONF);
    podmanEnvironment = { ...process.env, CONTAINERS_CONF: conf };
  }
  return podmanEnvironment;
}

/** podman runs one podman command (bounded) and resolves with its output; a non-zero exit fails unless `allowFailure`. */
export async function podman(
  args: readonly string[],
  { timeoutMs = 120_000, allowFailure = false } = {},
): Promise<{ exit: number | string; stdout: string; stderr: string }> {
  const r = await runToEnd('podman', args, { env: podmanEnv() }, timeoutMs);
  if (!allowFailure) assert.equal(r.exit, 0, `podman ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** ensureNodeBaseImage makes NODE_BASE_IMAGE unless it is there (debootstrap takes minutes the first time). */
export async function ensureNodeBaseImage(): Promise<void> {
  const r = await runToEnd('bash', [join(REPO, 'scripts/node-base-image.sh'), NODE_BASE_IMAGE], { env: podmanEnv() }, 900_000);
  assert.equal(r.exit, 0, `${r.stdout}\n${r.stderr}`);
}

/** DockerApiSocket is podman's Docker-compatible API served on a socket of the test's own. */
export interface DockerApiSocket {
  /** dockerHost is the socket as DOCKER_HOST names it (`unix:///…`). */
  readonly dockerHost: string;
  stop(): Promise<Exit>;
}

/** pingSocket asks the Docker API's GET /_ping on a unix socket: whether it answers 200. */
function pingSocket(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const asked = request({ socketPath, path: '/_ping', timeout: 2_000 }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    asked.on('error', () => resolve(false));
    asked.on('timeout', () => asked.destroy());
    asked.end();
  });
}

/** startDockerApiSocket runs `podman system service` (with podman's settings here) on a fresh socket until it answers /_ping, bounded. */
export async function startDockerApiSocket(): Promise<DockerApiSocket> {
  const socketPath = join(tempDir('podman-socket'), 'podman.sock');
  const service = spawnOwned('podman', ['system', 'service', '--time=0', `unix://${socketPath}`], { env: podmanEnv() });
  for (let attempt = 0; !(await pingSocket(socketPath)); attempt++) {
    if (attempt >= 100 || service.child.exitCode !== null) {
      await service.stop('SIGTERM').catch(() => undefined);
      assert.fail(`podman system service never answered on ${socketPath}: ${service.stderr()}`);
    }
    await sleep(200);
  }
  return { dockerHost: `unix://${socketPath}`, stop: () => service.stop('SIGTERM') };
}
