#!/usr/bin/env node
import { loadConfigFile } from '../core/config.ts';
import { UnavailableError } from '../core/errors.ts';
import { redactUrl } from '../store/index.ts';
import { parseStartArgs, START_USAGE, UsageError } from './args.ts';
import { DataDirInUseError } from '../store/data-dir-lock.ts';
import { startFogbank } from './start.ts';

const USAGE = `usage: fogbank <command>

commands:
  start     serve every API on one port (see: fogbank start --help)
  protoc    run protobuf compiler plugins over a descriptor set (see: fogbank protoc --help)`;

/** EXIT_DATA_DIR_IN_USE is the exit code of a start refused because another fogbank holds the data directory. */
const EXIT_DATA_DIR_IN_USE = 3;

/** main dispatches the fogbank command line and returns the exit code (or never, while serving). */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(`${START_USAGE}\n`);
        return 0;
      }
      return runStart(rest);
    case 'protoc': {
      const { runProtocCommand } = await import('./fogbank-protoc.ts');
      return runProtocCommand([...rest]);
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`fogbank: unknown command '${command}'\n${USAGE}\n`);
      return 2;
  }
}

/** storeLabel names the store in the start-up line: the database (password hidden) or the data directory. */
function storeLabel(backend: string, spec: string, dataDir: string | undefined): string {
  if (backend === 'postgres') return `postgres, ${redactUrl(spec)}`;
  return dataDir ? `${backend}, data: ${dataDir}` : backend;
}

/** STORE_UNAVAILABLE_EXIT is the exit code when the store's database cannot be reached at start. */
const STORE_UNAVAILABLE_EXIT = 69;

async function runStart(argv: readonly string[]): Promise<number> {
  const args = parseStartArgs(argv, process.env);
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
    ...(args.mailRelay === undefined ? {} : { mailRelay: args.mailRelay }),
    ...(args.uploadLimit === undefined ? {} : { uploadLimit: args.uploadLimit }),
    ...(args.eventTtlSeconds === undefined ? {} : { eventTtlSeconds: args.eventTtlSeconds }),
  });
  const tokenHint =
    server.adminTokenFile !== undefined
      ? `gcloud config set auth/access_token_file ${server.adminTokenFile}`
      : `printf '%s' '${server.adminToken}' > token && gcloud config set auth/access_token_file "$PWD/token"`;
  process.stdout.write(
    [
      `fogbank listening on ${server.url} (store: ${storeLabel(server.store.backend, args.store, server.dataDir)})`,
      `  admin token: ${server.adminTokenFile ?? server.adminToken}`,
      `  use it with gcloud:`,
      `    gcloud config set api_endpoint_overrides/compute ${server.url}/compute/v1/`,
      `    ${tokenHint}`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`fogbank: ${signal}, shutting down\n`);
      server.close().then(resolve, (error: unknown) => {
        process.stderr.write(`fogbank: error while shutting down: ${String(error)}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`fogbank: ${error.message}\n${START_USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`fogbank: ${error instanceof Error ? error.message : String(error)}\n`);
    // EX_UNAVAILABLE (sysexits.h): a supervisor can tell "database down, retry" from a bad setup;
    // a distinct code also lets scripts tell "already running here" from other failures.
    process.exitCode = error instanceof UnavailableError ? STORE_UNAVAILABLE_EXIT : error instanceof DataDirInUseError ? EXIT_DATA_DIR_IN_USE : 1;
  },
);
