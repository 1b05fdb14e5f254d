import pg from 'pg';
import { StoreUnavailableError } from './store.ts';

export { redactUrl } from './redact-url.ts';

/** PostgresConnectionOptions are the connection settings the PostgreSQL backend shares. */
export interface PostgresConnectionOptions {
  /** How many connections the pool may open (default 10; at least 2: one writes while others read). */
  readonly poolSize?: number;
  /** How long to wait for a connection before a request gets a 503 (default 5 s). */
  readonly connectTimeoutMs?: number;
}

const INT8_OID = 20;

// Revisions are bigint columns: parse them as numbers (exact up to 2^53, far beyond any feed).
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (text: string) => Number(text) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** connectionConfig is the pg client configuration for `url`. */
export function connectionConfig(url: string, options: PostgresConnectionOptions = {}): pg.ClientConfig {
  return {
    connectionString: url,
    types,
    application_name: 'fogbank',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // Bounds on a database that vanished without closing the connection (a partition): a query
    // gives up after a minute (a 503), dead peers are probed after 10 s of silence, and the
    // server ends a replica's transaction that has been idle for a minute, so a partitioned
    // replica cannot hold the write lock for ever.
    query_timeout: 60_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    idle_in_transaction_session_timeout: 60_000,
  };
}

/** poolConfig is the pool configuration for `url`. */
export function poolConfig(url: string, options: PostgresConnectionOptions = {}): pg.PoolConfig {
  return { ...connectionConfig(url, options), max: Math.max(2, options.poolSize ?? 10) };
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** isConnectionFailure tells a lost or impossible connection from an error of the statement itself. */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 is "connection exception".
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|Connection refused|not queryable/i.test(message)
  );
}

/** unavailableOr turns a connection failure into StoreUnavailableError and leaves other errors alone. */
export function unavailableOr(error: unknown): unknown {
  return isConnectionFailure(error) ? new StoreUnavailableError(error) : error;
}
