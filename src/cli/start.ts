import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Authenticator, type TokenGrant } from '../core/auth.ts';
import { realTimers, systemClock, type Clock, type Timers } from '../core/clock.ts';
import type { OperationsMode } from '../core/config.ts';
import { cryptoIds, hexId, type IdSource } from '../core/ids.ts';
import type { LogFormat, LogLevel } from '../core/log.ts';
import { buildServer, DEFAULT_BODY_LIMIT } from '../core/server.ts';
import { SERVICES } from '../services/registry.ts';
import { openStore } from '../store/open-store.ts';
import { prepareDataDir } from './data-dir.ts';
import type { Store } from '../store/store.ts';

/** StartOptions are the settings of one fogbank server (the CLI flags, as values). */
export interface StartOptions {
  readonly host?: string;
  readonly port?: number;
  /** `sqlite` (default), `memory`, or a `postgres://` URL. */
  readonly store?: string;
  /** Where SQLite, tokens and uploads live (default `./.fogbank`). */
  readonly dataDir?: string;
  /** Keep everything in memory and write nothing to disk. */
  readonly ephemeral?: boolean;
  readonly adminToken?: string;
  readonly tokens?: readonly TokenGrant[];
  readonly operations?: OperationsMode;
  readonly logLevel?: LogLevel;
  /** How logs are written: text lines (default) or JSON records. */
  readonly logFormat?: LogFormat;
  readonly bodyLimit?: number;
  readonly clock?: Clock;
  readonly timers?: Timers;
  readonly ids?: IdSource;
}

/** RunningFogbank is a started server. */
export interface RunningFogbank {
  /** The base URL clients use, e.g. `http://127.0.0.1:8780`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly adminToken: string;
  /** Where the admin token is kept, when it was written to disk. */
  readonly adminTokenFile: string | undefined;
  readonly dataDir: string | undefined;
  readonly store: Store;
  readonly app: FastifyInstance;
  /** close stops accepting, finishes in-flight requests, stops background work and closes the store. */
  close(): Promise<void>;
}

/** startFogbank opens the store, assembles every service and listens. */
export async function startFogbank(options: StartOptions = {}): Promise<RunningFogbank> {
  const ephemeral = options.ephemeral ?? false;
  const storeSpec = ephemeral ? 'memory' : (options.store ?? 'sqlite');
  const dataDir = ephemeral ? undefined : resolve(options.dataDir ?? '.fogbank');
  const needsDisk = dataDir !== undefined && (storeSpec === 'sqlite' || options.adminToken === undefined);
  if (needsDisk) prepareDataDir(dataDir);
  const ids = options.ids ?? cryptoIds;
  const { token: adminToken, file: adminTokenFile } = resolveAdminToken(options.adminToken, dataDir, ids);
  const store = await openStore(storeSpec, { dataDir: dataDir ?? '' });
  try {
    const app = await buildServer(
      {
        store,
        clock: options.clock ?? systemClock,
        timers: options.timers ?? realTimers,
        ids,
        auth: new Authenticator(adminToken, options.tokens ?? []),
        operations: options.operations ?? 'realistic',
      },
      SERVICES,
      { logLevel: options.logLevel ?? 'silent', logFormat: options.logFormat ?? 'text', bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT },
    );
    const host = options.host ?? '127.0.0.1';
    await app.listen({ host, port: options.port ?? 8780 });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8780);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${urlHost}:${port}`,
      host,
      port,
      adminToken,
      adminTokenFile,
      dataDir,
      store,
      app,
      close: () =>
        (closing ??= (async () => {
          await app.close();
          await store.close();
        })()),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** resolveAdminToken takes the given token, else the one kept in the data directory, else makes and keeps one. */
function resolveAdminToken(given: string | undefined, dataDir: string | undefined, ids: IdSource): { token: string; file: string | undefined } {
  if (given !== undefined) return { token: given, file: undefined };
  if (dataDir === undefined) return { token: `fogbank-${hexId(ids, 16)}`, file: undefined };
  const file = join(dataDir, 'admin-token');
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return { token: kept, file };
  } catch {
    // No token yet: make one below.
  }
  const token = `fogbank-${hexId(ids, 16)}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}
