import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Authenticator, type TokenGrant } from '../core/auth.ts';
import { realTimers, systemClock, type Clock, type Timers } from '../core/clock.ts';
import type { OperationsMode } from '../core/config.ts';
import { cryptoIds, hexId, type IdSource } from '../core/ids.ts';
import type { LogFormat, LogLevel } from '../core/log.ts';
import { buildServer, DEFAULT_BODY_LIMIT, type FogbankServer } from '../core/server.ts';
import { createClusterService } from '../services/cluster/index.ts';
import { KUBECONFIG_FILE_NAME, kubeconfigText } from '../services/cluster/kubeconfig.ts';
import { SERVICES } from '../services/registry.ts';
import { lockDataDir } from '../store/data-dir-lock.ts';
import { openStore } from '../store/open-store.ts';
import { prepareDataDir } from './data-dir.ts';
import type { Store } from '../store/store.ts';

/** StartOptions are the settings of one fogbank server (the CLI flags, as values). */
export interface StartOptions {
  readonly host?: string;
  readonly port?: number;
  /** `sqlite` (default), `memory`, or a `postgres://` URL. */
  readonly store?: string;
  /** Connections a postgres store may open (default 10). */
  readonly storePoolSize?: number;
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
  /** Forward every delivered mail message to this SMTP server (`smtp://host:port`). */
  readonly mailRelay?: string;
  /** Largest accepted media upload (bundles, APKs), in bytes. */
  readonly uploadLimit?: number;
  /** The most recipients a sent mail message may have (default 100, Gmail API's). */
  readonly mailMaxRecipients?: number;
  /** How long a received upload may be processed before the request is answered 503, in milliseconds (default 30 s). */
  readonly uploadDeadlineMs?: number;
  /** How long cluster API events live, in seconds (default one hour). */
  readonly eventTtlSeconds?: number;
  /** How long a replica leads singleton work (event expiry, controllers, retention) without renewing (default 10 s). */
  readonly leaderTtlMs?: number;
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
  /** The kubeconfig for the cluster API (`<data-dir>/kubeconfig`), when there is a data directory. */
  readonly kubeconfigFile: string | undefined;
  readonly dataDir: string | undefined;
  readonly store: Store;
  readonly app: FogbankServer;
  /**
   * warmUp does every family's deferred start-up work now (ServiceHandle.warmUp: loading its
   * working parts, seeding what a fresh instance has) instead of on the family's first request,
   * and resolves when it is done. `fogbank start` never calls it (start-up time and idle memory);
   * tests do, to start from a settled store.
   */
  warmUp(): Promise<void>;
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
  // Before anything in the directory is read or written: a second process must refuse, not share it.
  const lock = needsDisk ? lockDataDir(dataDir) : undefined;
  let store: Store;
  let adminToken: string;
  let adminTokenFile: string | undefined;
  const ids = options.ids ?? cryptoIds;
  const logLevel = options.logLevel ?? 'silent';
  try {
    ({ token: adminToken, file: adminTokenFile } = resolveAdminToken(options.adminToken, dataDir, ids));
    store = await openStore(storeSpec, {
      dataDir: dataDir ?? '',
      ...(options.storePoolSize === undefined ? {} : { poolSize: options.storePoolSize }),
      // The store keeps reconnecting; say so, since requests meanwhile get 503s.
      ...(logLevel === 'silent' ? {} : { onTrouble: (message: string) => process.stderr.write(`fogbank: store: ${message}\n`) }),
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  let built: FogbankServer | undefined;
  try {
    const app = (built = await buildServer(
      {
        store,
        clock: options.clock ?? systemClock,
        timers: options.timers ?? realTimers,
        ids,
        auth: new Authenticator(adminToken, options.tokens ?? []),
        operations: options.operations ?? 'realistic',
        ...(dataDir === undefined ? {} : { dataDir }),
        ...(options.mailRelay === undefined ? {} : { mailRelay: options.mailRelay }),
        ...(options.uploadLimit === undefined ? {} : { uploadLimit: options.uploadLimit }),
        ...(options.mailMaxRecipients === undefined ? {} : { mailMaxRecipients: options.mailMaxRecipients }),
        ...(options.uploadDeadlineMs === undefined ? {} : { uploadDeadlineMs: options.uploadDeadlineMs }),
      },
      // The cluster family takes its one start-up option (the event TTL) here.
      options.eventTtlSeconds === undefined ? SERVICES : SERVICES.map((service) => (service.name === 'cluster' ? createClusterService({ eventTtlSeconds: options.eventTtlSeconds! }) : service)),
      { logLevel, logFormat: options.logFormat ?? 'text', bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, ...(options.leaderTtlMs === undefined ? {} : { leaderTtlMs: options.leaderTtlMs }) },
    ));
    const host = options.host ?? '127.0.0.1';
    await app.listen({ host, port: options.port ?? 8780 });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8780);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const kubeconfigFile = dataDir === undefined ? undefined : join(dataDir, KUBECONFIG_FILE_NAME);
    if (kubeconfigFile !== undefined) {
      mkdirSync(dataDir!, { recursive: true, mode: 0o700 });
      writeFileSync(kubeconfigFile, kubeconfigText(`http://${urlHost}:${port}`, adminToken), { mode: 0o600 });
    }
    let closing: Promise<void> | undefined;
    return {
      warmUp: () => app.warmUp(),
      url: `http://${urlHost}:${port}`,
      host,
      port,
      adminToken,
      adminTokenFile,
      kubeconfigFile,
      dataDir,
      store,
      app,
      close: () =>
        (closing ??= (async () => {
          await app.close();
          await store.close();
          lock?.release();
        })()),
    };
  } catch (error) {
    // A start that fails after the families registered (the port is taken, say) stops their
    // background work and removes their temporary files before the store closes.
    await built?.close().catch(() => undefined);
    await store.close();
    lock?.release();
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
