import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { onTestProcessExit } from './exit.ts';

/**
 * A real, throw-away PostgreSQL server for tests and benchmarks: initdb in a temporary
 * directory, `postgres` on a free loopback port (its unix socket inside that directory too), and
 * everything removed by `stop`. Never a mock: when the server binaries are missing or the server
 * does not come up, `startPostgres` throws, loudly, so the suite fails instead of skipping.
 *
 * As root (CI containers), PostgreSQL refuses to run, so the server runs as the `postgres` user
 * Debian's package creates (or `FOGBANK_PG_USER`). initdb and postgres then start in the
 * temporary directory (made theirs), never in the suite's: a clone inside a private (0700)
 * directory, as `mktemp -d` makes, is out of their reach, and initdb fails on it (PostgreSQL 13
 * and 14: "could not change directory to …: Permission denied", exit 1; 15 only warns).
 */

/** PostgresServer is a running temporary server. */
export interface PostgresServer {
  readonly port: number;
  /** url is a connection URL for `database` (default `postgres`) as the superuser `fogbank`. */
  url(database?: string): string;
  /** createDatabase makes a fresh, empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** kill stops the server abruptly (SIGKILL), keeping its data, for outage tests. */
  kill(): Promise<void>;
  /** restart starts the server again on the same port and data after `kill`. */
  restart(): Promise<void>;
  /** stop shuts the server down and removes its directory. */
  stop(): Promise<void>;
}

/** postgresBinDir finds the server binaries: FOGBANK_PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string {
  const given = process.env['FOGBANK_PG_BIN'];
  if (given !== undefined && given !== '') return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin and FOGBANK_PG_BIN): ' +
        'install them (apt-get install -y postgresql; .ci/run does this) — the postgres store tests need a real server',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/**
 * TEST_SETTINGS are the server settings tests run with. fsync off: these servers hold test data
 * only and are never crashed themselves (the tests kill fogbank, and `kill` below loses nothing
 * the server already handed to the OS).
 */
export const TEST_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off' };

/** UNREACHABLE_DIRECTORY is what a PostgreSQL program prints when it cannot return to its working directory. */
const UNREACHABLE_DIRECTORY = /could not change directory to/;

/** startPostgres starts a fresh server with `settings` (postgres -c options); the caller must `stop` it. */
export async function startPostgres(settings: Readonly<Record<string, string>> = TEST_SETTINGS): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = await mkdtemp(join(tmpdir(), 'fogbank-pg-'));
  const data = join(dir, 'data');
  const owner = serverUser();
  let child: ChildProcess | undefined;
  let log = '';
  try {
    if (owner !== undefined) {
      chownSync(dir, owner.uid, owner.gid);
      requireReachable(dir, owner);
    }
    const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'fogbank', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], {
      encoding: 'utf8',
      cwd: dir,
      ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
    });
    // Fatal on some versions, a warning on others: treated alike, so a regression shows everywhere.
    if (init.status !== 0 || UNREACHABLE_DIRECTORY.test(init.stderr)) throw new Error(`initdb failed (${String(init.status ?? init.error)}): ${init.stderr}`);
    const port = await freePort();
    const launch = async (): Promise<void> => {
      log = '';
      const options = Object.entries({ listen_addresses: '127.0.0.1', max_connections: '200', ...settings }).flatMap(([name, value]) => [
        '-c',
        `${name}=${value}`,
      ]);
      const proc = spawn(
        join(bin, 'postgres'),
        ['-D', data, '-p', String(port), '-k', dir, ...options],
        // Its own process group, so nothing the runner sends its group reaches the server (its
        // backends make themselves group leaders: killServer finds them by parent).
        { stdio: ['ignore', 'ignore', 'pipe'], detached: true, cwd: dir, ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }) },
      );
      proc.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
      child = proc;
      await waitReady(port, proc, () => log);
    };
    await launch();
    // A test process that ends without `stop` (a cancelled test, SIGTERM from the runner) must
    // not leave a detached server and its files behind.
    onTestProcessExit(() => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) killServer(child);
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    });
    const url = (database = 'postgres'): string => `postgres://fogbank@127.0.0.1:${port}/${database}`;
    const killChild = async (): Promise<void> => {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      const backends = killServer(proc);
      await exited;
      await processesGone(backends);
    };
    return {
      port,
      url,
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      kill: killChild,
      async restart() {
        await killChild();
        // A killed postmaster leaves its pid file; postgres removes a stale one itself.
        await launch();
      },
      async stop() {
        await killChild();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (child !== undefined && child.exitCode === null) killServer(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * killServer SIGKILLs a server and every backend it forked, and returns the backends' pids.
 * PostgreSQL's backends each lead a process group of their own, so a kill of the postmaster's
 * group misses them: a backend outliving its postmaster holds the shared memory the next start
 * needs ("pre-existing shared memory block is still in use"). The postmaster is stopped first,
 * so it forks none while its children are read.
 */
function killServer(proc: ChildProcess): number[] {
  const pid = proc.pid;
  if (pid === undefined) return [];
  const signal = (target: number, name: NodeJS.Signals): void => {
    try {
      process.kill(target, name);
    } catch {
      // Already gone.
    }
  };
  signal(pid, 'SIGSTOP');
  const backends = childrenOf(pid);
  for (const backend of backends) signal(backend, 'SIGKILL');
  signal(-pid, 'SIGKILL');
  signal(pid, 'SIGKILL');
  return backends;
}

/** childrenOf lists a process's children from /proc (none where there is no /proc). */
function childrenOf(parent: number): number[] {
  if (!existsSync('/proc')) return [];
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat !== undefined && stat.parent === parent) children.push(Number(entry));
  }
  return children;
}

/** procStat reads a process's state and parent pid from /proc/PID/stat; undefined once it is gone. */
function procStat(pid: number): { state: string; parent: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the parenthesised command name: state, then the parent's pid.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state ?? '', parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/** processesGone resolves once each process has exited (gone, or a zombie nobody reaps): bounded, 5 s. */
async function processesGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  const alive = (pid: number): boolean => {
    const stat = procStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
  };
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * requireReachable fails with the reason when the server's user cannot enter its own directory:
 * a temporary directory (TMPDIR) inside one private to root would otherwise fail later and
 * obscurely, in initdb.
 */
function requireReachable(dir: string, owner: { uid: number; gid: number; name: string }): void {
  const probe = spawnSync('test', ['-w', dir, '-a', '-x', dir], { uid: owner.uid, gid: owner.gid, cwd: dir });
  if (probe.status !== 0) {
    throw new Error(
      `the test PostgreSQL server runs as '${owner.name}', which cannot enter its temporary directory ${dir}: set TMPDIR to a directory every user can reach (such as /tmp)`,
    );
  }
}

/** serverUser is the account the server runs as when we are root; undefined otherwise. */
function serverUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const name = process.env['FOGBANK_PG_USER'] ?? 'postgres';
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(`running as root, PostgreSQL must run as another user, but user '${name}' does not exist (set FOGBANK_PG_USER)`);
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), name };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** waitReady polls until the server accepts a connection (bounded: 60 s). */
async function waitReady(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`postgres exited during start-up: ${log()}`);
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'fogbank', database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      killServer(proc);
      throw new Error(`postgres did not accept connections on 127.0.0.1:${port} within 60 s: ${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
