#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { loadConfigFile } from '../core/config.ts';
import type { TlsFiles } from '../core/tls/tls-material.ts';
import { UnavailableError } from '../lib/errors.ts';
import { FOGBANK_VERSION } from '../lib/version.ts';
import { DataDirInUseError } from '../store/data-dir-lock.ts';
import { redactUrl } from '../store/index.ts';
import { startFogbank, tlsSite } from '../fogbank.ts';
import { SnapshotError } from '../store/snapshot-format.ts';
import { parseStartArgs, START_USAGE, UsageError, type StartArgs } from './args.ts';
import { renderBanner } from '../core/banner.ts';
import { missingSqliteBindingHint } from './native-binding.ts';

const USAGE = `usage: fogbank <command> [flags]

commands:
  start          serve every API on one port (fogbank start --help lists its flags)
  protoc         run protobuf compiler plugins over a descriptor set (fogbank protoc --help)
  clock          show or move a running server's clock (fogbank clock --help)
  requests       print a running server's request journal, --follow for live (fogbank requests --help)
  snapshot       save a running server's whole state to a file, or load one (fogbank snapshot --help)
  reset          empty every family of a running server (fogbank reset --help)
  faults         add, list or clear a running server's fault rules (fogbank faults --help)
  policy test    what a security policy decides for given requests (fogbank policy --help)
  policy replay  recorded requests under a policy and a proposed change: what changes (fogbank policy replay --help)
  guard          a reverse proxy enforcing a security policy live (fogbank guard --help)
  help [start]   show this help, or a command's
  version        print the version (also --version, -v)`;

/** main dispatches the fogbank command line and returns the exit code (or never, while serving). */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(`${START_USAGE}\n`);
        return 0;
      }
      return runStart(parseStartArgs(rest, process.env));
    case 'protoc': {
      const { runProtocCommand } = await import('../plugin/protoc-command.ts');
      return runProtocCommand([...rest]);
    }
    case 'clock':
      return (await import('./admin-client.ts')).runClockCommand(rest);
    case 'requests':
      return (await import('./admin-client.ts')).runRequestsCommand(rest);
    case 'snapshot':
      return (await import('./admin-client.ts')).runSnapshotCommand(rest);
    case 'reset':
      return (await import('./admin-client.ts')).runResetCommand(rest);
    case 'faults':
      return (await import('./admin-client.ts')).runFaultsCommand(rest);
    case 'policy':
      return (await import('./policy-commands.ts')).runPolicyCommand(rest);
    case 'guard':
      return (await import('./policy-commands.ts')).runGuardCommand(rest);
    case 'version':
    case '--version':
    case '-v':
      process.stdout.write(`fogbank ${FOGBANK_VERSION}\n`);
      return 0;
    case 'help':
    case '--help':
    case '-h':
      if (rest[0] === 'start') {
        process.stdout.write(`${START_USAGE}\n`);
        return 0;
      }
      if (rest[0] === 'protoc') {
        const { runProtocCommand } = await import('../plugin/protoc-command.ts');
        return runProtocCommand(['--help']);
      }
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case undefined:
      process.stderr.write(`${USAGE}\n`);
      return 2;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** runStart serves until SIGINT or SIGTERM, then shuts down and resolves 0. */
async function runStart(args: StartArgs): Promise<number> {
  // Signals are taken before anything is printed: whoever reads the banner may signal at once.
  // A terminal's Ctrl-C reaches every process of the group, and `npm start` forwards it once
  // more: repeats are ignored rather than killing the shutdown.
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  let received: NodeJS.Signals | undefined;
  let repeated: () => void = () => {};
  const repeat = new Promise<void>((resolve) => (repeated = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received !== undefined) {
      repeated();
      return;
    }
    received = signal;
    signalled(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const tokens = args.config === undefined ? [] : (await loadConfigFile(args.config)).tokens;
  const server = await startFogbank({
    host: args.host,
    port: args.port,
    dataDir: args.dataDir,
    ephemeral: args.ephemeral,
    store: args.store,
    storePoolSize: args.storePoolSize,
    ...(args.adminToken === undefined ? {} : { adminToken: args.adminToken }),
    tokens,
    operations: args.operations,
    logLevel: args.logLevel,
    logFormat: args.logFormat,
    ...(args.uploadDeadlineSeconds === undefined ? {} : { uploadDeadlineMs: args.uploadDeadlineSeconds * 1000 }),
    ...(args.snapshot === undefined ? {} : { snapshot: args.snapshot }),
    ...(args.tls === undefined ? {} : { tls: args.tls === false ? false : readTlsFiles(args.tls) }),
    ...(args.journalSize === undefined ? {} : { journalSize: args.journalSize }),
    ...(args.journalBodies === undefined ? {} : { journalBodies: args.journalBodies }),
    ...args.familyOptions,
  });
  if (received === undefined) {
    const { url, dataDir, adminToken, adminTokenFile } = server;
    // Only the HTTPS address: the certificates of an --ephemeral server are made on first need.
    const site = { url, dataDir, adminToken, adminTokenFile, listeners: server.listeners, ...tlsSite(server.httpsUrl, undefined) };
    process.stdout.write(renderBanner({ ...site, storeBackend: storeLabel(server.store.backend, args.store) }, server.services));
    // Each family's first request would otherwise load and build it (100 ms and more); done now,
    // after the ready line and yielding to requests, the first one finds it built.
    if (args.warmUp !== false) server.app.warmUpInBackground();
  }
  const signal = await stopSignal;
  process.stdout.write(`fogbank: ${signal}, shutting down\n`);
  try {
    await server.close();
  } catch (error) {
    process.stderr.write(`fogbank: error while shutting down: ${String(error)}\n`);
    return 1;
  }
  // A terminal's Ctrl-C reaches npm and fogbank at once, and npm forwards it once more when it
  // handles it. A quick shutdown can end fogbank before npm has handled its own, and then npm
  // sometimes dies of that signal instead of exiting 0 (seen 2–3 times in 12 `npm start` runs).
  // So a stopped server waits for that repeat, which shows npm is done with the signal, or
  // REPEAT_GRACE_MS when nothing forwards signals to it.
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([repeat, new Promise((resolve) => (grace = setTimeout(resolve, REPEAT_GRACE_MS)))]);
  clearTimeout(grace);
  return 0;
}

/** readTlsFiles reads the files of --tls-cert, --tls-key and --tls-ca; one that cannot be read is a usage error naming it. */
function readTlsFiles(files: { certFile?: string; keyFile?: string; caFile?: string }): TlsFiles {
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        `cannot read ${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`,
      );
    }
  };
  return {
    cert: read('--tls-cert', files.certFile!),
    key: read('--tls-key', files.keyFile!),
    ...(files.caFile === undefined ? {} : { ca: read('--tls-ca', files.caFile) }),
  };
}

/** REPEAT_GRACE_MS is how long a stopped server waits for a launcher's repeat of the signal that stopped it. */
const REPEAT_GRACE_MS = 200;

/** storeLabel names the store in the start-up line: PostgreSQL with its database (password hidden). */
function storeLabel(backend: string, spec: string): string {
  return backend === 'postgres' ? `postgres, ${redactUrl(spec)}` : backend;
}

/** EXIT_DATA_DIR_IN_USE is the exit code of a start refused because another fogbank holds the data directory. */
const EXIT_DATA_DIR_IN_USE = 3;

/** STORE_UNAVAILABLE_EXIT (EX_UNAVAILABLE, sysexits.h) lets a supervisor tell "database down, retry" from a bad setup. */
const STORE_UNAVAILABLE_EXIT = 69;

/** describeFailure phrases a start-up failure for people; listen errors name the address and what to do. */
function describeFailure(error: unknown, argv: readonly string[]): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    let where = '127.0.0.1:8780';
    try {
      const args = parseStartArgs(argv.slice(1), process.env);
      where = `${args.host.includes(':') ? `[${args.host}]` : args.host}:${args.port}`;
    } catch {
      // The flags parsed once already; keep the default wording if they somehow do not.
    }
    if (code === 'EADDRINUSE') return `${where} is already in use (another fogbank?); choose another port with --port, or --port 0 for any free one`;
    if (code === 'EACCES')
      return `not allowed to listen on ${where} (ports below 1024 need privileges); choose another port with --port, or --port 0 for any free one`;
    return `cannot listen on ${where}: the address is not one of this machine's; choose another with --host`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const hint = missingSqliteBindingHint(message);
  return hint === undefined ? message : `${message}\n${hint}`;
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A client command the server refused: its message, exit 2 for bad input (400), else 1.
    if (error instanceof Error && error.name === 'AdminFailure') {
      process.stderr.write(`fogbank: ${error.message}\n`);
      process.exitCode = (error as Error & { exitCode: number }).exitCode;
      return;
    }
    if (error instanceof SnapshotError) {
      // A seed that cannot be read is a mistake on the command line, like a bad flag: one line, exit 2.
      process.stderr.write(`fogbank: cannot start from the snapshot: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof Error && error.name === 'TlsFilesError') {
      process.stderr.write(`fogbank: cannot serve HTTPS: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof UsageError) {
      const help = ['start', 'clock', 'requests', 'snapshot', 'reset', 'faults', 'policy', 'guard'].includes(argv[0] ?? '')
        ? `fogbank ${argv[0]} --help`
        : 'fogbank help';
      process.stderr.write(`fogbank: ${error.message} (see: ${help})\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`fogbank: ${describeFailure(error, argv)}\n`);
    // Distinct codes let scripts tell "database down, retry" and "already running here" from other failures.
    process.exitCode = error instanceof UnavailableError ? STORE_UNAVAILABLE_EXIT : error instanceof DataDirInUseError ? EXIT_DATA_DIR_IN_USE : 1;
  },
);
