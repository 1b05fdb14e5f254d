// fogbank as a user gets it: the tarball `npm pack` makes from this checkout, and npm run as a
// user runs it, from a directory outside the checkout (nothing of the repository reachable), with
// the npm registry's packages from this machine's npm cache.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../src/testing/temp.ts';
import { REPO } from './paths.ts';
import { runToEnd } from './process.ts';

/** PackedFogbank is `npm pack --json`'s account of the tarball. */
export interface PackedFogbank {
  readonly tarball: string;
  /** Bytes of the .tgz, and of its files unpacked. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string; readonly size: number; readonly mode: number }[];
}

/** packFogbank runs `npm pack` in the checkout (dist/ as built; the build is not re-run) into a temporary directory. */
export async function packFogbank(): Promise<PackedFogbank> {
  for (const built of ['dist/fogbank.mjs', 'dist/index.mjs', 'dist/types/fogbank.d.ts'])
    assert.ok(existsSync(join(REPO, built)), `${built} is missing: run npm run build (npm ci does)`);
  const destination = tempDir('pack');
  const r = await runToEnd('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], { cwd: REPO, env: npmEnv(destination) }, 120_000);
  assert.equal(r.exit, 0, r.stderr);
  const [packed] = JSON.parse(r.stdout) as [Omit<PackedFogbank, 'tarball'> & { filename: string }];
  return { ...packed, tarball: join(destination, packed.filename) };
}

/** betterSqlite3Version is the better-sqlite3 the package depends on (package.json pins it). */
function betterSqlite3Version(): string {
  return (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['better-sqlite3']!;
}

/**
 * localPrebuilds is a directory holding better-sqlite3's native binding, as its releases publish it
 * (`better-sqlite3-v{version}-node-v{abi}-{platform}-{arch}.tar.gz`, holding
 * `build/Release/better_sqlite3.node`), packed from the one this checkout's `npm ci` compiled.
 * better-sqlite3's own install script (`prebuild-install || node-gyp rebuild`) takes it through
 * prebuild-install's documented `better_sqlite3_local_prebuilds` setting instead of downloading
 * it (no registry of binaries is reachable here) or compiling it again (about two minutes on 2 cores).
 */
export async function localPrebuilds(): Promise<string> {
  const dir = tempDir('prebuilds');
  const name = `better-sqlite3-v${betterSqlite3Version()}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const binding = join(REPO, 'node_modules/better-sqlite3');
  assert.ok(existsSync(join(binding, 'build/Release/better_sqlite3.node')), 'node_modules/better-sqlite3 is not built: run npm ci');
  const r = await runToEnd('tar', ['-czf', join(dir, name), '-C', binding, 'build/Release/better_sqlite3.node']);
  assert.equal(r.exit, 0, r.stderr);
  return dir;
}

/** userNpmCache is this machine's npm cache, where the registry's packages already are. */
function userNpmCache(): string {
  return process.env['npm_config_cache'] ?? join(process.env['HOME'] ?? '/root', '.npm');
}

/**
 * npmEnv is the environment npm runs in for a test: its own empty user config (the tester's
 * .npmrc does not apply), the machine's cache, registry packages taken from the cache when there,
 * and, with `prebuilds`, better-sqlite3's binding from localPrebuilds.
 */
export function npmEnv(scratch: string, prebuilds?: string): NodeJS.ProcessEnv {
  const userconfig = join(scratch, '.npmrc-user');
  if (!existsSync(userconfig)) writeFileSync(userconfig, '');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_|^NODE_OPTIONS$|^NODE_PATH$|^INIT_CWD$/i.test(key)) env[key] = value;
  return {
    ...env,
    npm_config_userconfig: userconfig,
    npm_config_cache: userNpmCache(),
    npm_config_prefer_offline: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    ...(prebuilds === undefined ? {} : { npm_config_better_sqlite3_local_prebuilds: prebuilds }),
  };
}

/** npm runs npm to completion in `cwd` (bounded at 5 minutes: an install from a cold cache) and fails the test on a non-zero exit. */
export async function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const r = await runToEnd('npm', args, { cwd, env }, 300_000);
  assert.equal(r.exit, 0, `npm ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** removeNpxInstallsOfPackedTarballs removes npx's installs (in the cache's `_npx` folder) of tarballs packFogbank made. */
function removeNpxInstallsOfPackedTarballs(): void {
  const npxDir = join(userNpmCache(), '_npx');
  if (!existsSync(npxDir)) return;
  for (const name of readdirSync(npxDir)) {
    const manifest = join(npxDir, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const spec = (JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies?.['fogbank'] ?? '';
    if (/^file:.*\/fogbank-pack-[^/]+\/fogbank-[\d.]+\.tgz$/.test(spec)) rmSync(join(npxDir, name), { recursive: true, force: true });
  }
}

/**
 * withNpxCacheCleaned runs `run` (an `npx ./fogbank-*.tgz …`) with no npx install of an earlier
 * packed tarball in the cache (npx keys its installs by the spec, the same `./fogbank-0.1.0.tgz`
 * each time, and could run an old one), and removes its own afterwards, so the test leaves the
 * machine's npm cache as it found it.
 */
export async function withNpxCacheCleaned<T>(run: () => Promise<T>): Promise<T> {
  removeNpxInstallsOfPackedTarballs();
  try {
    return await run();
  } finally {
    removeNpxInstallsOfPackedTarballs();
  }
}
