import type { OperationsMode } from '../core/config.ts';
import { type FamilyOption, OptionError } from '../core/family-options.ts';
import { isLogFormat, isLogLevel, type LogFormat, type LogLevel } from '../core/log.ts';
import { parseByteSize } from '../lib/byte-size.ts';
import { parseDuration } from '../lib/duration.ts';
import { SERVICES } from '../fogbank.ts';

/** StartArgs are the parsed flags of `fogbank start`. */
export interface StartArgs {
  host: string;
  port: number;
  dataDir: string;
  ephemeral: boolean;
  store: string;
  adminToken: string | undefined;
  operations: OperationsMode;
  config: string | undefined;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Connections in the PostgreSQL store's pool. */
  storePoolSize: number;
  /** The values of the families' own flags (ServiceDefinition.options), by option key; absent ones take the family's default. */
  familyOptions: Record<string, unknown>;
  /** A snapshot file to start from (`--snapshot FILE`). */
  snapshot?: string;
  /** How long a received upload may be processed before it is answered 503 (`--upload-deadline 30s`); absent means the default. */
  uploadDeadlineSeconds?: number;
  /** HTTPS on the same port: false with `--no-tls`; the files of `--tls-cert`, `--tls-key` (and `--tls-ca`); absent, fogbank's own certificates. */
  tls?: false | { certFile?: string; keyFile?: string; caFile?: string };
  /** false with `--no-warm-up`: families are built on their first request only, not in the background after the ready line. */
  warmUp?: false;
  /** How many answered requests the request journal keeps (`--journal-size`); absent means the default. */
  journalSize?: number;
  /** How many bytes of each request and response body the journal keeps (`--journal-bodies`); absent keeps none. */
  journalBodies?: number;
}

/** UsageError is a command-line mistake; the CLI prints it with a pointer to the help and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Flag describes one `fogbank start` flag: how it is written, its default and what it does. */
interface Flag {
  readonly name: string;
  /** The value's placeholder in the help; absent for a switch. */
  readonly value?: string;
  /** The default, as the help shows it. */
  readonly default: string;
  readonly help: string;
  /** apply checks the value and stores it. */
  readonly apply: (args: StartArgs, value: string) => void;
}

/** CORE_FLAGS are the flags that belong to no family. */
const CORE_FLAGS: readonly Flag[] = [
  { name: 'host', value: 'HOST', default: '127.0.0.1', help: 'address to listen on', apply: (a, v) => (a.host = v) },
  {
    name: 'port',
    value: 'PORT',
    default: '8780',
    help: 'port to listen on; 0 picks a free one (the banner shows it)',
    apply: (a, v) => {
      if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not '${v}'`);
      a.port = Number(v);
    },
  },
  { name: 'data-dir', value: 'DIR', default: './.fogbank', help: 'where the SQLite store and the admin token are kept', apply: (a, v) => (a.dataDir = v) },
  { name: 'ephemeral', default: 'off', help: 'keep everything in memory and write nothing to disk', apply: (a) => (a.ephemeral = true) },
  {
    name: 'store',
    value: 'sqlite|memory|postgres://user@host:port/db',
    default: 'sqlite, or $FOGBANK_STORE',
    help: 'where API state lives (memory: lost on exit; postgres: shared by replicas, see docs/deploy.md)',
    apply: (a, v) => (a.store = v),
  },
  {
    name: 'store-pool-size',
    value: 'N',
    default: '10',
    help: 'connections to PostgreSQL per fogbank',
    apply: (a, v) => {
      const size = Number(v);
      if (!/^\d+$/.test(v) || size < 2 || size > 1000) throw new UsageError(`--store-pool-size must be a number from 2 to 1000, not '${v}'`);
      a.storePoolSize = size;
    },
  },
  {
    name: 'admin-token',
    value: 'TOKEN',
    default: 'kept in <data-dir>/admin-token',
    help: 'the bearer token that holds every scope and permission',
    apply: (a, v) => {
      if (v === '') throw new UsageError('--admin-token must not be empty');
      a.adminToken = v;
    },
  },
  {
    name: 'operations',
    value: 'realistic|instant',
    default: 'realistic',
    help: 'realistic: Operations go PENDING → RUNNING → DONE over ~0.5 s; instant: DONE at once',
    apply: (a, v) => {
      if (v !== 'realistic' && v !== 'instant') throw new UsageError(`--operations must be realistic or instant, not '${v}'`);
      a.operations = v;
    },
  },
  {
    name: 'snapshot',
    value: 'FILE',
    default: 'none',
    help: 'start from this snapshot (fogbank snapshot save): it replaces the stored state first',
    apply: (a, v) => {
      if (v === '') throw new UsageError('--snapshot must name a file');
      a.snapshot = v;
    },
  },
  {
    name: 'tls-cert',
    value: 'FILE',
    default: 'made by fogbank, in <data-dir>/tls/',
    help: 'the PEM certificate (chain) HTTPS is served with on the same port; needs --tls-key',
    apply: (a, v) => (a.tls = { ...(a.tls || {}), certFile: nonEmpty('--tls-cert', v) }),
  },
  {
    name: 'tls-key',
    value: 'FILE',
    default: 'made by fogbank',
    help: 'the PEM private key of --tls-cert',
    apply: (a, v) => (a.tls = { ...(a.tls || {}), keyFile: nonEmpty('--tls-key', v) }),
  },
  {
    name: 'tls-ca',
    value: 'FILE',
    default: "fogbank's CA",
    help: 'with --tls-cert: the PEM CA that client certificates must chain to, and that the kubeconfig trusts',
    apply: (a, v) => (a.tls = { ...(a.tls || {}), caFile: nonEmpty('--tls-ca', v) }),
  },
  { name: 'no-tls', default: 'off', help: 'serve plain HTTP only (no HTTPS on the port)', apply: (a) => (a.tls = false) },
  {
    name: 'no-warm-up',
    default: 'off',
    help: 'build each API family on its first request instead of in the background once listening',
    apply: (a) => (a.warmUp = false),
  },
  { name: 'config', value: 'FILE', default: 'none', help: 'YAML or JSON file granting tokens scopes and permissions', apply: (a, v) => (a.config = v) },
  {
    name: 'log-level',
    value: 'silent|error|warn|info|debug',
    default: 'info',
    help: 'info: one line per request; warn: only failed requests (4xx, 5xx); debug: more detail',
    apply: (a, v) => {
      if (!isLogLevel(v)) throw new UsageError(`--log-level must be silent, error, warn, info or debug, not '${v}'`);
      a.logLevel = v;
    },
  },
  {
    name: 'log-format',
    value: 'text|json',
    default: 'text',
    help: 'text: lines for people; json: one structured JSON object per line',
    apply: (a, v) => {
      if (!isLogFormat(v)) throw new UsageError(`--log-format must be text or json, not '${v}'`);
      a.logFormat = v;
    },
  },
  {
    name: 'upload-deadline',
    value: 'DURATION',
    default: '30s',
    help: 'how long a received upload (bundle, APK, mail message) may be processed before the request is answered 503',
    apply: (a, v) => {
      const seconds = parseDuration(v);
      if (seconds === undefined || seconds === 0) throw new UsageError(`--upload-deadline must be a duration such as 30s, 2m or 1h, not '${v}'`);
      a.uploadDeadlineSeconds = seconds;
    },
  },
  {
    name: 'journal-size',
    value: 'N',
    default: '1000',
    help: 'how many answered requests the request journal keeps (GET /_fogbank/requests); 0 turns it off',
    apply: (a, v) => {
      if (!/^\d{1,9}$/.test(v)) throw new UsageError(`--journal-size must be a whole number of requests, not '${v}'`);
      a.journalSize = Number(v);
    },
  },
  {
    name: 'journal-bodies',
    value: 'BYTES|NK|NM',
    default: 'off',
    help: 'keep the first BYTES of each request and response body in the journal (read with ?bodies=true)',
    apply: (a, v) => {
      const bytes = parseByteSize(v);
      if (bytes === undefined || bytes > 64 * 1024 * 1024)
        throw new UsageError(`--journal-bodies must be a number of bytes up to 64M, optionally with K or M, not '${v}'`);
      a.journalBodies = bytes;
    },
  },
];

/** nonEmpty refuses an empty file name. */
function nonEmpty(flag: string, value: string): string {
  if (value === '') throw new UsageError(`${flag} must name a file`);
  return value;
}

/** familyFlag is a family's option (ServiceDefinition.options) as a flag: its parse error is a usage error. */
function familyFlag(option: FamilyOption<unknown>): Flag {
  return {
    name: option.flag,
    value: option.value,
    default: option.default,
    help: option.help,
    apply: (args, text) => {
      try {
        args.familyOptions[option.key] = option.parse(text);
      } catch (error) {
        throw error instanceof OptionError ? new UsageError(error.message) : error;
      }
    },
  };
}

/** FLAGS are core's flags, then each family's, in the order of services/registry.ts. */
const FLAGS: readonly Flag[] = [...CORE_FLAGS, ...SERVICES.flatMap((service) => service.options ?? []).map(familyFlag)];

const BY_NAME: ReadonlyMap<string, Flag> = new Map(FLAGS.map((flag) => [flag.name, flag]));

/** START_USAGE is the help text of `fogbank start`: every flag with its default, in one aligned column. */
export const START_USAGE = ((): string => {
  const rows = [
    ...FLAGS.map((flag) => [`--${flag.name}${flag.value === undefined ? '' : ` ${flag.value}`}`, `${flag.help} (default: ${flag.default})`] as const),
    ['-h, --help', 'show this help'] as const,
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    'usage: fogbank start [flags]',
    '',
    'Serves every API on one port until SIGINT or SIGTERM (then exits 0).',
    '',
    'flags (--flag VALUE or --flag=VALUE; each at most once):',
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`),
  ].join('\n');
})();

/** defaultStartArgs are the values of `fogbank start` with no flags. */
function defaultStartArgs(): StartArgs {
  return {
    host: '127.0.0.1',
    port: 8780,
    dataDir: './.fogbank',
    ephemeral: false,
    store: 'sqlite',
    adminToken: undefined,
    operations: 'realistic',
    config: undefined,
    logLevel: 'info',
    logFormat: 'text',
    storePoolSize: 10,
    familyOptions: {},
  };
}

/** envVariableOf is the environment variable that gives a flag's value: `--admin-token` is FOGBANK_ADMIN_TOKEN. */
export function envVariableOf(flag: string): string {
  return `FOGBANK_${flag.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * parseStartArgs reads `fogbank start` flags (`--flag value` or `--flag=value`), refusing repeats
 * and contradictions. Every flag that takes a value may come from `env` as FOGBANK_<FLAG>
 * (envVariableOf: FOGBANK_STORE, FOGBANK_ADMIN_TOKEN, FOGBANK_PORT, …; an empty one is unset),
 * checked as the flag is and overridden by the flag; switches (`--ephemeral`, `--no-tls`) are flags only.
 */
export function parseStartArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): StartArgs {
  const args = defaultStartArgs();
  for (const flag of FLAGS) {
    const variable = envVariableOf(flag.name);
    const value = env[variable];
    if (flag.value === undefined || value === undefined || value === '') continue;
    try {
      flag.apply(args, value);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`${variable}: ${error.message}`);
      throw error;
    }
  }
  const given = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const flag = BY_NAME.get(name);
    if (flag === undefined) throw new UsageError(`unknown flag --${name}`);
    if (given.has(name)) throw new UsageError(`--${name} is given more than once`);
    given.add(name);
    let value = '';
    if (flag.value === undefined) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
    } else if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    flag.apply(args, value);
  }
  if (given.has('no-tls') && ['tls-cert', 'tls-key', 'tls-ca'].some((flag) => given.has(flag)))
    throw new UsageError('--no-tls serves no HTTPS, so it cannot be combined with --tls-cert, --tls-key or --tls-ca');
  if (given.has('tls-cert') !== given.has('tls-key')) throw new UsageError('--tls-cert and --tls-key go together: give both, or neither');
  if (given.has('tls-ca') && !given.has('tls-cert'))
    throw new UsageError("--tls-ca goes with --tls-cert and --tls-key (fogbank's own certificates use fogbank's own CA)");
  if (args.ephemeral && given.has('data-dir')) throw new UsageError('--ephemeral writes nothing to disk, so it cannot be combined with --data-dir');
  if (args.ephemeral && given.has('store') && args.store !== 'memory')
    throw new UsageError(`--ephemeral keeps state in memory, so it cannot be combined with --store ${args.store}`);
  return args;
}
