import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { InjectOptions, Response as InjectResponse } from 'light-my-request';
import type { Store } from '../store/store.ts';
import type { Authenticator } from './auth.ts';
import type { Clock, Timers } from '../lib/clock.ts';
import type { DiscoveryApi } from './discovery.ts';
import type { OperationsMode } from './config.ts';
import type { FamilyOption, FamilyOptionValues } from './family-options.ts';
import type { Term } from './identifiers.ts';
import type { PathAlias } from './path-aliases.ts';
import type { IdSource } from '../lib/ids.ts';
import type { RunSingleton } from './singletons.ts';
import type { Faults } from './faults/faults.ts';
import type { FaultMethods } from './faults/methods.ts';
import type { FaultEffect } from './faults/rule.ts';
import type { ControlPlane } from './control-plane.ts';
import type { PolicyEvaluationFactory } from './policy-evaluation.ts';
import type { FamilyListener, ListenerAddress, ListenerContext } from './family-listeners.ts';

/** ServiceContext is everything core hands a service: state, time, ids, identity and options. */
export interface ServiceContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly ids: IdSource;
  readonly auth: Authenticator;
  readonly operations: OperationsMode;
  /** dataDir is where families keep files (uploads, raw mail); undefined with `--ephemeral` (use a temporary FileArea). */
  readonly dataDir?: string;
  /** options are the values given for the families' declared options (ServiceDefinition.options); absent ones take the family's default. */
  readonly options?: FamilyOptionValues;
  /** How long a family may process a received upload before answering 503; undefined means the upload engine's default (30 s). */
  readonly uploadDeadlineMs?: number;
  /**
   * singleton runs background work that must run once among replicas sharing the store (expiry
   * sweeps, controllers) on one elected replica, handing it over when that replica stops or dies.
   * The family stops what it started in its ServiceHandle.close (core stops what is left after).
   */
  readonly singleton: RunSingleton;
  /** faults are the server's fault rules (core/faults/), matched before each handler runs; absent, nothing is matched. */
  readonly faults?: Faults;
  /** control is the server's test controls (clock, request journal) for the admin API; absent in servers built without them. */
  readonly control?: ControlPlane;
  /**
   * dispatch answers a request in-process exactly as the server answers one sent over HTTP (the
   * owning family's routes, authentication, faults, journal), for a layer above the families
   * that acts through a family's own API (the console's compute actions). The server adds it;
   * absent where a family runs without one.
   */
  readonly dispatch?: (request: InjectOptions) => Promise<InjectResponse>;
}

/** ServiceHandle lets a service stop its background work when the server shuts down. */
export interface ServiceHandle {
  /** close stops background work (timers, watchers) and wakes anything long-polling. */
  close(): Promise<void>;
  /**
   * warmUp does now what the family otherwise does on its first request (loading its working
   * parts, seeding the objects a fresh instance has). `fogbank start` calls it in the background
   * after its ready line (FogbankServer.warmUpInBackground); tests call it to start from a settled
   * store. Requests that arrive meanwhile wait for the same work.
   */
  warmUp?(): Promise<void>;
  /**
   * stateReplaced follows a replacement of the store's whole state (a snapshot restored, a
   * reset): the family seeds again what a fresh instance has (the cluster's namespaces and
   * default policy) where the new state lacks it. In-memory views of the store follow the
   * change feed's reset signal by themselves (SubscribeOptions.onReset).
   */
  stateReplaced?(): Promise<void>;
}

/** ErrorResponse is an error as it goes on the wire: status, extra headers and a JSON body. */
export interface ErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** ErrorSite is what a family may need to phrase an error: where the request went and what it carried. */
export interface ErrorSite {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly contentType: string | undefined;
  /** The largest accepted body, for "payload too large" texts. */
  readonly bodyLimit: number;
}

/** BannerSite is what a family may need for its start-up banner lines: where fogbank listens and the admin token. */
export interface BannerSite {
  /** The base URL, e.g. `http://127.0.0.1:8780` (no trailing slash). */
  readonly url: string;
  readonly dataDir: string | undefined;
  readonly adminToken: string;
  /** Where the admin token is kept, when it is on disk. */
  readonly adminTokenFile: string | undefined;
  /** The same address over HTTPS (`https://127.0.0.1:8780`), absent when TLS is off. */
  readonly httpsUrl?: string;
  /** What HTTPS clients trust (PEM) and the admin's client certificate, when fogbank's own CA made one; absent when TLS is off. */
  readonly tls?: BannerTls;
  /** The families' own listeners (ServiceDefinition.listen), when any is open. */
  readonly listeners?: readonly ListenerAddress[];
}

/** BannerTls is what a family's client files need to reach fogbank over HTTPS. */
export interface BannerTls {
  /** PEM certificates a client should trust (the kubeconfig's certificate-authority-data). */
  readonly trust: string;
  /** The admin's client certificate and key (PEM), signed by fogbank's CA. */
  readonly adminCertificate?: { readonly certificate: string; readonly key: string };
}

/** BannerSection is a family's part of the start-up banner: the APIs it serves and how to point each client at them. */
export interface BannerSection {
  /** Each API served, by its user-facing name, with its base URL. */
  readonly apis: readonly { readonly name: string; readonly baseUrl: string }[];
  /** Per client (gcloud, kubectl, a client library), the commands or settings that point it here. */
  readonly clients: readonly { readonly name: string; readonly setup: readonly string[] }[];
}

/** ClientFile is a file a family writes into the data directory at start, for its clients to read (the kubeconfig). */
export interface ClientFile {
  /** The file name under the data directory. */
  readonly name: string;
  readonly text: string;
}

/**
 * ServiceDefinition is one API family. Everything but `register` is read at start-up and should
 * stay light; `register` builds the family's own Fastify app the first time a request reaches the
 * family (core/family-app.ts), so it should bring its routes and services in with `import()`.
 */
export interface ServiceDefinition {
  readonly name: string;
  /**
   * pathPrefixes are the URL path prefixes the family answers under (`/compute/v1`, `/apis`, …).
   * Core uses them to pick the dialect of answers given before any of the family's handlers ran
   * (malformed URLs, oversized headers or path segments, unknown paths): the longest matching
   * prefix wins, a family marked `fallback` answers paths that no prefix matches, and without one
   * core's neutral answer does (neutral-error.ts). A family lists its base paths without their
   * version too (`/gmail`), so that a version it does not serve is refused in its dialect.
   */
  readonly pathPrefixes: readonly string[];
  /**
   * pathAliases are further prefixes answered exactly as a canonical one (path-aliases.ts): core
   * rewrites them before routing, so `register` adds each route under the canonical prefix only.
   * They count as the family's prefixes for the dialect of core's answers.
   */
  readonly pathAliases?: readonly PathAlias[];
  /** browserHome is where a browser asking for `/` (`Accept: text/html`) is sent: the console's page. */
  readonly browserHome?: string;
  /** fallback marks a family that answers paths no family's prefix matches; none of fogbank's own is one (they get core's neutral answer). */
  readonly fallback?: boolean;
  /**
   * scopes are the family's OAuth scopes whose spec spelling differs from the real one
   * (`…/auth/mail.send` is `…/auth/gmail.send`): core's Authenticator reads a grant or a
   * requirement in either spelling as the real one.
   */
  readonly scopes?: readonly Term[];
  /**
   * storeFileFolders are the folders (ending in `/`) of the store's `files` the family keeps
   * its files in (raw mail, artifacts): snapshots carry every file under them, a reset removes them.
   */
  readonly storeFileFolders?: readonly string[];
  /**
   * renderError phrases anything thrown under the family's paths — its own typed errors, a
   * TransportProblem found by core or Fastify, or an unexpected exception (its dialect's 500) —
   * in the family's dialect. It is the family's one error serializer, a pure function: core sends
   * what it returns (error-answer.ts).
   */
  renderError(error: unknown, site: ErrorSite): ErrorResponse;
  /**
   * encodeError writes an error body on the wire for this request (default: compact JSON); the
   * cluster indents it when the request asks for pretty output, as the apiserver does.
   */
  encodeError?(body: unknown, request: FastifyRequest): string;
  /**
   * errorBodyProblem says what keeps `body` (parsed JSON) from being an error answer with `status`
   * in this family's dialect, or undefined when it is one. The bad-input fuzzer holds every error
   * answer under the family's paths to it; a family without it is held to the shape of its own
   * renderError output.
   */
  errorBodyProblem?(status: number, body: unknown): string | undefined;
  /** register adds the family's routes, hooks and background work to its app (called once, when the family is first called). */
  // biome-ignore lint/suspicious/noConfusingVoidType: a family with nothing to hand back registers with an async function that returns nothing
  register(app: FastifyInstance, context: ServiceContext): Promise<ServiceHandle | void>;
  /**
   * screenUnknownPath runs before the family's app answers 404 to a request under its prefixes (or,
   * for the fallback family, under none) that no route matches: before its body is read, as a
   * route's own hooks would. Throwing answers that instead; compute and the publisher
   * authenticate here, so without credentials an unknown path gets the same 401 as a known one.
   * `request.url` is the routed path (aliases already rewritten).
   */
  screenUnknownPath?(request: FastifyRequest, context: ServiceContext): Promise<void> | void;
  /**
   * discovery loads the Discovery descriptions of the Google APIs the family serves (core/
   * discovery.ts), for the discovery service to render; it should bring them in with `import()`.
   */
  discovery?(): Promise<readonly DiscoveryApi[]>;
  /** banner is the family's section of the start-up banner (omit it to show nothing). */
  banner?(site: BannerSite): BannerSection;
  /**
   * options are the family's settings: start() reads them by `key`, the command line by `--flag`
   * and builds its help from them; the family reads the values from `context.options`.
   */
  readonly options?: readonly FamilyOption<unknown>[];
  /**
   * faultMethods names the family's requests for fault rules (core/faults/methods.ts); without
   * it a family with `discovery` is named by its Discovery methods. Loaded when the first rule
   * naming the family is added.
   */
  faultMethods?(): Promise<FaultMethods>;
  /** faultEffects are the family-specific fault effects it applies (`operationError`, `watch`, `dropAfterBytes`); status, latency and reset every family has. */
  readonly faultEffects?: readonly FaultEffect[];
  /**
   * journaled false keeps the family's requests out of the request journal (the admin API's own,
   * so reading the journal does not fill it).
   */
  readonly journaled?: boolean;
  /**
   * requestMethodId names the API method of a journaled request when the family's routes do not
   * (the cluster's catch-all routes: `create clusterroles`, `watch events`); undefined falls back
   * to the Discovery id whose path matches. `url` is the path and query as sent. Called when the
   * journal is read, never on the request path.
   */
  requestMethodId?(httpMethod: string, url: string): string | undefined;
  /**
   * policyEvaluation loads the family's security-policy evaluation (compute's), for the admin API's
   * what-if route and the live policy stream `fogbank guard` follows (core/policy-evaluation.ts).
   * Loaded on the first such request, never at start-up.
   */
  policyEvaluation?(): Promise<PolicyEvaluationFactory>;
  /**
   * listen opens the family's own listeners beside the HTTP port (mail's SMTP submission) when its
   * options ask for them (core/family-listeners.ts): called before the ready line, so what the
   * banner announces accepts; undefined when none is asked for. It should bring its code in with
   * `import()`, and only when asked.
   */
  listen?(context: ListenerContext): Promise<FamilyListener | undefined>;
  /** clientFiles are written (0600) into the data directory once fogbank listens, when it has one; each is rewritten at every start. */
  clientFiles?(site: BannerSite): readonly ClientFile[];
}
