/**
 * fogbank as a library: startFogbank opens the store, assembles every family of
 * services/registry.ts and listens; `start` is the same for tests, with the test controls typed
 * (issue 28: a free port and memory by default, the clock, the request journal, client env). The command line (cli/) parses flags into these options and
 * prints; tests, benches and programs call it directly. This file keeps the options and the two
 * doors; the parts of a start live in src/start/: the admin token (admin-token.ts), the control
 * plane (control-plane.ts), the client files and the site they describe (client-files.ts), the
 * seed snapshot (snapshot-file.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Authenticator, type TokenGrant } from './core/auth.ts';
import type { OperationsMode } from './core/config.ts';
import { pickOptionValues } from './core/family-options.ts';
import { loadOnFirstUse } from './core/lazy.ts';
import type { LogFormat, LogLevel } from './core/log.ts';
import { buildServer, DEFAULT_BODY_LIMIT, type FogbankServer } from './core/server.ts';
import type { ServiceDefinition } from './core/service.ts';
import { type Clock, systemClock, type Timers } from './lib/clock.ts';
import { ClockTimers, ControlledClock } from './lib/controlled-clock.ts';
import { parseGoDuration } from './lib/duration.ts';
import type { JournalEntry, JournalFilter } from './core/journal-view.ts';
import type { ControlPlane } from './core/control-plane.ts';
import { RequestJournal } from './core/journal.ts';
import { cryptoIds, type IdSource } from './lib/ids.ts';
import { Faults } from './core/faults/faults.ts';
import { type FamilyStartOptions, SERVICES } from './services/registry.ts';
import { type ListenerAddress, type OpenListeners, openFamilyListeners } from './core/family-listeners.ts';
import { withConsole } from './console/index.ts';
import { fromFiles, generatedMaterial, keepSharedCa, type TlsMaterial, type TlsSetting } from './core/tls/tls-material.ts';
import { resolveAdminToken } from './start/admin-token.ts';
import { tlsSite, writeClientFiles } from './start/client-files.ts';
import { controlPlaneOf } from './start/control-plane.ts';
import { openSnapshotFile } from './start/snapshot-file.ts';
import { prepareDataDir } from './store/data-dir.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { openStore } from './store/open-store.ts';
import { type RestoreSummary, Snapshots } from './store/snapshots.ts';
import type { Store } from './store/store.ts';

export { SERVICES };
export { tlsSite, writeClientFiles } from './start/client-files.ts';
export { Faults } from './core/faults/faults.ts';
export { FaultRuleError, type FaultRule, type FaultRuleInput } from './core/faults/rule.ts';
export type { JournalEntry, JournalFilter };
export type { ListenerAddress } from './core/family-listeners.ts';

/** CoreStartOptions are the settings of one fogbank server that belong to no family (the CLI flags, as values). */
export interface CoreStartOptions {
  readonly host?: string;
  readonly port?: number;
  /** `sqlite` (default), `memory`, a `postgres://` URL, or a Store already open (fogbank closes it on close). */
  readonly store?: string | Store;
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
  /** How long a received upload may be processed before the request is answered 503, in milliseconds (default 30 s). */
  readonly uploadDeadlineMs?: number;
  /** How long a replica leads singleton work (event expiry, controllers, retention) without renewing (default 10 s). */
  readonly leaderTtlMs?: number;
  /** The clock the server's controllable clock starts from (default the machine's); tests move it through `control.clock`. */
  readonly clock?: Clock;
  /** Timers for the families' delays (default: timers measured on the controllable clock, so moving it fires what is due). */
  readonly timers?: Timers;
  /** How many answered requests the request journal keeps (default 1,000; 0 turns the journal off). */
  readonly journalSize?: number;
  /** How many bytes of each request and response body the journal keeps (default 0: none; read them with `bodies: true`). */
  readonly journalBodies?: number;
  readonly ids?: IdSource;
  /**
   * A snapshot file (`fogbank snapshot save`, `GET /_fogbank/snapshot`) to start from: it
   * replaces the store's state before the families start. A snapshot that cannot be read fails
   * the start with a SnapshotError, the store unchanged.
   */
  readonly snapshot?: string;
  /** The families to serve (default: every family of services/registry.ts), e.g. one family configured in code. */
  readonly services?: readonly ServiceDefinition[];
  /**
   * HTTPS on the same port (core/tls/): true (the default) serves it with fogbank's own CA and
   * certificates (kept in `<data-dir>/tls/`), false serves plain HTTP only, and `{ cert, key, ca? }`
   * (PEM text) serves the caller's own.
   */
  readonly tls?: TlsSetting;
}

/** StartOptions are every setting of one fogbank server: core's and each family's own (ServiceDefinition.options). */
export interface StartOptions extends CoreStartOptions, FamilyStartOptions {}

/** RunningFogbank is a started server. */
export interface RunningFogbank {
  /** The base URL clients use, e.g. `http://127.0.0.1:8780`. */
  readonly url: string;
  /** The same address over HTTPS (`https://127.0.0.1:8780`), unless TLS is off. */
  readonly httpsUrl: string | undefined;
  /**
   * tlsMaterial is what HTTPS is served with and what clients should trust (`trust`, PEM);
   * undefined when TLS is off. Read (or made) at start when there is a data directory; without
   * one (`--ephemeral`) made on first need, so that start-up loads no X.509 library.
   */
  tlsMaterial(): Promise<TlsMaterial | undefined>;
  readonly host: string;
  readonly port: number;
  readonly adminToken: string;
  /** Where the admin token is kept, when it was written to disk. */
  readonly adminTokenFile: string | undefined;
  /** The files the families wrote for their clients (ServiceDefinition.clientFiles), by name, when there is a data directory. */
  readonly clientFiles: ReadonlyMap<string, string>;
  /** The kubeconfig for the cluster API (`<data-dir>/kubeconfig`), when there is a data directory. */
  readonly kubeconfigFile: string | undefined;
  readonly dataDir: string | undefined;
  readonly store: Store;
  /** snapshots saves, restores and resets the whole state of `store` (every family's files included). */
  readonly snapshots: Snapshots;
  readonly app: FogbankServer;
  /** The families this server serves (the console among them), in banner order. */
  readonly services: readonly ServiceDefinition[];
  /** The families' own listeners beside the HTTP port (mail's SMTP submission, `smtpPort`), open before start resolved. */
  readonly listeners: readonly ListenerAddress[];
  /** faults are the fault rules requests are matched against (core/faults/): add, list, remove, clear. */
  readonly faults: Faults;
  /** The test controls: the clock every family reads, and the request journal. */
  readonly control: ControlPlane;
  /**
   * warmUp does every family's deferred start-up work now (ServiceHandle.warmUp: loading its
   * working parts, seeding what a fresh instance has) instead of on the family's first request,
   * and resolves when it is done. Tests call it, to start from a settled store; `fogbank start`
   * does the same work in the background after its ready line (FogbankServer.warmUpInBackground).
   */
  warmUp(): Promise<void>;
  /** close stops accepting, finishes in-flight requests, stops background work and closes the store. */
  close(): Promise<void>;
}

/** startFogbank opens the store, assembles every service and listens. */
export async function startFogbank(options: StartOptions = {}): Promise<RunningFogbank> {
  const ephemeral = options.ephemeral ?? false;
  const given = typeof options.store === 'object' ? options.store : undefined;
  const storeSpec = given !== undefined || ephemeral ? 'memory' : typeof options.store === 'string' ? options.store : 'sqlite';
  const services = withConsole(options.services ?? SERVICES);
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
  // Checked before anything is opened: a family option of the wrong type is the caller's mistake.
  const familyOptions = pickOptionValues(
    services.flatMap((service) => service.options ?? []),
    options as Readonly<Record<string, unknown>>,
  );
  const journal = new RequestJournal(options.journalSize, options.journalBodies);
  try {
    ({ token: adminToken, file: adminTokenFile } = resolveAdminToken(options.adminToken, dataDir, ids));
    store =
      given ??
      (await openStore(storeSpec, {
        dataDir: dataDir ?? '',
        ...(options.storePoolSize === undefined ? {} : { poolSize: options.storePoolSize }),
        // The store keeps reconnecting; say so, since requests meanwhile get 503s.
        ...(logLevel === 'silent' ? {} : { onTrouble: (message: string) => process.stderr.write(`fogbank: store: ${message}\n`) }),
      }));
  } catch (error) {
    lock?.release();
    throw error;
  }
  let built: FogbankServer | undefined;
  let listeners: OpenListeners | undefined;
  // Every family reads this clock; untouched it is the given clock plus nothing.
  const clock = new ControlledClock(options.clock ?? systemClock);
  const auth = new Authenticator(
    adminToken,
    options.tokens ?? [],
    services.flatMap((service) => service.scopes ?? []),
  );
  const timers = options.timers ?? new ClockTimers(clock);
  const faults = new Faults(services, ids);
  // After a restore or reset the families built by then seed what a fresh instance has (a seed restored before they are built needs none of it).
  const host = options.host ?? '127.0.0.1';
  const tlsSetting = options.tls ?? true;
  const tls =
    tlsSetting === false
      ? undefined
      : loadOnFirstUse(async () =>
          typeof tlsSetting === 'object' ? fromFiles(tlsSetting) : generatedMaterial({ host, dataDir, store, now: clock.now(), ids }),
        );
  const snapshots = new Snapshots(store, {
    fileFolders: services.flatMap((service) => service.storeFileFolders ?? []),
    afterReplace: async () => {
      await keepSharedCa(store, tls?.ready());
      await built?.stateReplaced();
    },
  });
  const control: ControlPlane = controlPlaneOf({ clock, timers, journal, services, auth, snapshots, faults });
  try {
    // Before the families start: they read the state they begin from (and sweep files no record names).
    if (options.snapshot !== undefined) await snapshots.restore(await openSnapshotFile(options.snapshot));
    // With a data directory the kubeconfig written below needs them (read from files after the
    // first start, made on a new one), and the user's own are checked now, so a mistake fails the
    // start. They are made while the families register and the port opens, and the start waits
    // for them: everything the ready line announces exists when it is printed.
    const material = tls !== undefined && (dataDir !== undefined || typeof tlsSetting === 'object') ? tls() : undefined;
    // Awaited below; a failure meanwhile is that await's, not an unhandled rejection.
    material?.catch(() => undefined);
    // What every family is given, by the HTTP app and by the families' own listeners alike.
    const familyContext = {
      store,
      faults,
      clock,
      timers,
      ids,
      auth,
      control,
      operations: options.operations ?? 'realistic',
      options: familyOptions,
      ...(dataDir === undefined ? {} : { dataDir }),
    };
    const app = await buildServer(
      {
        ...familyContext,
        ...(options.uploadDeadlineMs === undefined ? {} : { uploadDeadlineMs: options.uploadDeadlineMs }),
      },
      services,
      {
        logLevel,
        logFormat: options.logFormat ?? 'text',
        bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
        ...(options.leaderTtlMs === undefined ? {} : { leaderTtlMs: options.leaderTtlMs }),
        ...(tls === undefined
          ? {}
          : {
              tls: async () => {
                const material = await tls();
                return { cert: material.serving.certificate, key: material.serving.key, ...(material.clientCa === undefined ? {} : { ca: material.clientCa }) };
              },
            }),
      },
    );
    built = app;
    await app.listen({ host, port: options.port ?? 8780 });
    await material;
    // The families' own listeners (mail's SMTP) accept before the ready line (core/family-listeners.ts).
    listeners = await openFamilyListeners(services, {
      ...familyContext,
      host,
      tls: tls === undefined ? undefined : async () => listenerTls(await tls()),
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 8780);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    const httpsUrl = tls === undefined ? undefined : `https://${urlHost}:${port}`;
    const site = { url, dataDir, adminToken, adminTokenFile };
    const clientFiles = writeClientFiles(services, { ...site, ...tlsSite(httpsUrl, tls?.ready()) });
    let closing: Promise<void> | undefined;
    return {
      warmUp: () => app.warmUp(),
      services,
      listeners: listeners.addresses,
      url,
      httpsUrl,
      tlsMaterial: async () => tls?.(),
      host,
      port,
      adminToken,
      adminTokenFile,
      clientFiles,
      kubeconfigFile: clientFiles.get('kubeconfig'),
      dataDir,
      store,
      snapshots,
      app,
      faults,
      control,
      close: () =>
        (closing ??= (async () => {
          await listeners?.close();
          await app.close();
          await store.close();
          lock?.release();
        })()),
    };
  } catch (error) {
    // A start that fails after the families registered (the port is taken, say) stops their
    // background work and removes their temporary files before the store closes.
    await listeners?.close().catch(() => undefined);
    await built?.close().catch(() => undefined);
    await store.close();
    lock?.release();
    throw error;
  }
}

/** listenerTls is what a family's listener serves TLS with (ListenerTls): the serving certificate and what clients trust. */
function listenerTls(material: TlsMaterial): { cert: string; key: string; trust: string } {
  return { cert: material.serving.certificate, key: material.serving.key, trust: material.trust };
}

// ── start(): fogbank for tests, in-process (the programmatic door of issue 28). It defaults to a
// free loopback port and an ephemeral store, writes the client files (kubeconfig, an access-token
// file for gcloud) into a temporary directory when there is no data directory, and hands back the
// test controls typed.

/** FogbankClock moves the clock every family reads (Operations, Event expiry, timestamps). */
export interface FogbankClock {
  /** now is the server's current time. */
  now(): Date;
  /** freeze stops the clock where it is. */
  freeze(): void;
  /** unfreeze lets it run again from where it stands. */
  unfreeze(): void;
  /** set jumps to a time (a Date, or RFC 3339 / anything Date.parse reads). */
  set(time: Date | string): void;
  /** advance moves it forward by a Go duration (`'1h'`, `'30s'`) or milliseconds, and resolves once what became due has run. */
  advance(duration: string | number): Promise<void>;
}

/** Fogbank is a started fogbank with its test controls. */
export interface Fogbank {
  /** The base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The same address over HTTPS, e.g. `https://127.0.0.1:41234` (undefined with `tls: false`). */
  readonly httpsUrl: string | undefined;
  /** The PEM certificates an HTTPS client should trust (fogbank's CA), undefined with `tls: false`. */
  readonly ca: string | undefined;
  /** The families' own listeners (mail's SMTP submission with `smtpPort`), e.g. `smtp://127.0.0.1:41235`. */
  readonly listeners: readonly ListenerAddress[];
  readonly adminToken: string;
  /** The kubeconfig that points kubectl and the Kubernetes clients here, as the admin. */
  readonly kubeconfig: string;
  /** A file holding the admin token, for gcloud's CLOUDSDK_AUTH_ACCESS_TOKEN_FILE. */
  readonly tokenFile: string;
  /**
   * env is the environment that points the clients here: KUBECONFIG (kubectl, client-go,
   * @kubernetes/client-node's loadFromDefault), CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE and
   * CLOUDSDK_AUTH_ACCESS_TOKEN_FILE (gcloud), and FOGBANK_URL / FOGBANK_TOKEN for the googleapis
   * Node clients, which read no endpoint from the environment: pass `rootUrl: FOGBANK_URL + '/'`
   * and the token as an OAuth2 access token.
   */
  env(): Record<string, string>;
  readonly clock: FogbankClock;
  /** faults are the fault rules (`faults.add({ method: 'compute.instanceTemplates.insert', status: 429 })`; the same rules as `POST /_fogbank/faults`). */
  readonly faults: Faults;
  /** requests reads the request journal, newest first (the same filters as `GET /_fogbank/requests`). */
  requests(filter?: JournalFilter): Promise<JournalEntry[]>;
  /** snapshot is the whole state of every family as one versioned snapshot (the bytes `GET /_fogbank/snapshot` answers). */
  snapshot(): Promise<Buffer>;
  /** restore replaces the whole state with a snapshot's; one that cannot be read rejects with a SnapshotError and changes nothing. */
  restore(snapshot: Uint8Array): Promise<RestoreSummary>;
  /** reset empties every family, the fault rules and the request journal (the admin token, the tokens file and the clock are kept), as a fresh server starts. */
  reset(): Promise<void>;
  /** stop closes the server and removes its temporary files. */
  stop(): Promise<void>;
  /** The running server underneath (store, app, control plane). */
  readonly server: RunningFogbank;
}

/**
 * start starts fogbank in this process for a test: 127.0.0.1, a free port and an in-memory store
 * unless `options` say otherwise (`dataDir` without `ephemeral: false` still means memory only if
 * `ephemeral` is true; give `dataDir` to keep state on disk).
 */
export async function start(options: StartOptions = {}): Promise<Fogbank> {
  const ephemeral = options.ephemeral ?? options.dataDir === undefined;
  const server = await startFogbank({ host: '127.0.0.1', port: 0, ...options, ephemeral });
  // Client files and the token file go to a temporary directory when the server keeps none (no
  // data directory, or a token given rather than kept there: it is not written into the user's directory).
  const scratch = server.dataDir === undefined || server.adminTokenFile === undefined ? mkdtempSync(join(tmpdir(), 'fogbank-')) : undefined;
  try {
    // The kubeconfig trusts fogbank's CA: made now if the start did not need it.
    const tls = await server.tlsMaterial();
    const files =
      server.dataDir === undefined && scratch !== undefined
        ? writeClientFiles(options.services, {
            url: server.url,
            dataDir: scratch,
            adminToken: server.adminToken,
            adminTokenFile: undefined,
            ...tlsSite(server.httpsUrl, tls),
          })
        : server.clientFiles;
    let tokenFile = server.adminTokenFile;
    if (tokenFile === undefined) {
      tokenFile = join(scratch ?? tmpdir(), 'admin-token');
      writeFileSync(tokenFile, `${server.adminToken}\n`, { mode: 0o600 });
    }
    const kubeconfig = files.get('kubeconfig') ?? '';
    const { clock } = server.control;
    let stopped: Promise<void> | undefined;
    return {
      url: server.url,
      httpsUrl: server.httpsUrl,
      ca: tls?.trust,
      listeners: server.listeners,
      adminToken: server.adminToken,
      kubeconfig,
      tokenFile,
      server,
      env: () => ({
        KUBECONFIG: kubeconfig,
        CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: `${server.url}/compute/v1/`,
        CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: tokenFile,
        FOGBANK_URL: server.url,
        FOGBANK_TOKEN: server.adminToken,
      }),
      clock: {
        now: () => new Date(clock.now()),
        freeze: () => clock.freeze(),
        unfreeze: () => clock.unfreeze(),
        set: (time) => {
          const ms = typeof time === 'string' ? Date.parse(time) : time.getTime();
          if (Number.isNaN(ms)) throw new RangeError(`${JSON.stringify(String(time))} is not a time`);
          clock.set(ms);
        },
        advance: async (duration) => {
          let ms = duration;
          if (typeof duration === 'string') {
            const parsed = parseGoDuration(duration);
            if ('error' in parsed) throw new RangeError(parsed.error);
            ms = parsed.ms;
          }
          await server.control.advance(ms as number);
        },
      },
      faults: server.faults,
      requests: (filter) => server.control.requests.read(filter),
      snapshot: () => server.snapshots.bytes(),
      restore: (snapshot) => server.snapshots.restore(snapshot),
      reset: async () => {
        await server.control.reset();
      },
      stop: () =>
        (stopped ??= (async () => {
          await server.close();
          if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
        })()),
    };
  } catch (error) {
    await server.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}
