import { isLogLevel, type LogLevel } from '../core/log.ts';
import type { OperationsMode } from '../core/config.ts';

/** StartArgs are the parsed flags of `fogbank start`. */
export interface StartArgs {
  host: string;
  port: number;
  dataDir: string;
  ephemeral: boolean;
  store: string;
  /** Connections a postgres store may open. */
  storePoolSize: number;
  adminToken: string | undefined;
  operations: OperationsMode;
  config: string | undefined;
  logLevel: LogLevel;
  mailRelay: string | undefined;
  /** Largest accepted media upload (bundles, APKs), in bytes; undefined for the family's default. */
  uploadLimit: number | undefined;
  /** How long cluster API events live (`--event-ttl 1h`); absent means the family's default. */
  eventTtlSeconds?: number;
}

/** UsageError is a command-line mistake; the CLI prints it with the usage text and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** START_USAGE is the help text of `fogbank start`. */
export const START_USAGE = `usage: fogbank start [--host 127.0.0.1] [--port 8780] [--data-dir ./.fogbank] [--ephemeral]
                     [--store sqlite|memory|postgres://user@host:port/db] [--store-pool-size 10]
                     [--admin-token TOKEN]
                     [--operations realistic|instant] [--config FILE] [--log-level silent|error|warn|info|debug]
                     [--mail-relay smtp://host:port] [--upload-limit BYTES|NK|NM|NG] [--event-ttl 1h]`;

const VALUE_FLAGS: ReadonlySet<string> = new Set(['host', 'port', 'data-dir', 'store', 'store-pool-size', 'admin-token', 'operations', 'config', 'log-level', 'mail-relay', 'upload-limit', 'event-ttl']);

const DURATION_UNITS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };

/** parseDuration reads a Go-style duration of whole units (`1h`, `30m`, `1h30m`, `90s`) in seconds, as kube-apiserver's --event-ttl takes it. */
export function parseDuration(value: string): number | undefined {
  if (!/^(\d+[hms])+$/.test(value)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([hms])/g)) seconds += Number(amount) * DURATION_UNITS[unit!]!;
  return seconds;
}

/**
 * parseStartArgs reads `fogbank start` flags (`--flag value` or `--flag=value`); `env` supplies
 * FOGBANK_STORE, which `--store` overrides.
 */
export function parseStartArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): StartArgs {
  const args: StartArgs = {
    host: '127.0.0.1',
    port: 8780,
    dataDir: './.fogbank',
    ephemeral: false,
    store: env['FOGBANK_STORE'] || 'sqlite',
    storePoolSize: 10,
    adminToken: undefined,
    operations: 'realistic',
    config: undefined,
    logLevel: 'info',
    mailRelay: undefined,
    uploadLimit: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (name === 'ephemeral') {
      if (eq !== -1) throw new UsageError('--ephemeral takes no value');
      args.ephemeral = true;
      continue;
    }
    if (!VALUE_FLAGS.has(name)) throw new UsageError(`unknown flag --${name}`);
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    switch (name) {
      case 'host':
        args.host = value;
        break;
      case 'port': {
        const port = Number(value);
        if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not '${value}'`);
        args.port = port;
        break;
      }
      case 'data-dir':
        args.dataDir = value;
        break;
      case 'store':
        args.store = value;
        break;
      case 'store-pool-size': {
        const size = Number(value);
        if (!/^\d+$/.test(value) || size < 2 || size > 1000) throw new UsageError(`--store-pool-size must be a number from 2 to 1000, not '${value}'`);
        args.storePoolSize = size;
        break;
      }
      case 'admin-token':
        if (value === '') throw new UsageError('--admin-token must not be empty');
        args.adminToken = value;
        break;
      case 'operations':
        if (value !== 'realistic' && value !== 'instant') throw new UsageError(`--operations must be realistic or instant, not '${value}'`);
        args.operations = value;
        break;
      case 'config':
        args.config = value;
        break;
      case 'event-ttl': {
        const seconds = parseDuration(value);
        if (seconds === undefined || seconds === 0) throw new UsageError(`--event-ttl must be a duration such as 1h, 30m or 90s, not '${value}'`);
        args.eventTtlSeconds = seconds;
        break;
      }
      case 'log-level':
        if (!isLogLevel(value)) throw new UsageError(`--log-level must be silent, error, warn, info or debug, not '${value}'`);
        args.logLevel = value;
        break;
      case 'mail-relay':
        if (!/^smtps?:\/\/[^/:]+(:\d+)?\/?$/.test(value)) throw new UsageError(`--mail-relay must be smtp://host:port or smtps://host:port, not '${value}'`);
        args.mailRelay = value;
        break;
      case 'upload-limit': {
        // Binary multiples, as upload limits are usually written (512M is 512 MiB).
        const match = /^(\d+)([KMG]?)$/i.exec(value);
        const bytes = match === null ? Number.NaN : Number(match[1]) * 1024 ** ' KMG'.indexOf((match[2] || ' ').toUpperCase());
        if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new UsageError(`--upload-limit must be a positive number of bytes, optionally with K, M or G, not '${value}'`);
        args.uploadLimit = bytes;
        break;
      }
      default:
        throw new UsageError(`unknown flag --${name}`);
    }
  }
  return args;
}
