// Debian's podman as the container tests run it: as root with runc, cgroupfs and no default
// ulimits (crun fails on this kind of machine on cgroups and rlimits), from a containers.conf of
// the test's own (CONTAINERS_CONF; /etc is never edited). No registry is reachable: the Node base
// image is made from Debian's packages by scripts/node-base-image.sh and kept under its tag.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../src/testing/temp.ts';
import { REPO } from './paths.ts';
import { runToEnd } from './process.ts';

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
