/**
 * An in-process cluster API for tests: the cluster family alone on a memory store (started by
 * the shared src/testing harness), driven with `app.inject`, with a manual clock and seeded ids
 * so answers are stable.
 */
import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import type { ControlPlane } from '../core/control-plane.ts';
import type { FogbankServer } from '../core/server.ts';
import { ManualClock } from '../lib/clock.ts';
import { seededIds } from '../lib/ids.ts';
import { MemoryStore, type MemoryStoreOptions } from '../store/index.ts';
import { startFogbank } from './fogbank.ts';
import { createClusterService, type ClusterOptions } from '../services/cluster/index.ts';

/** ADMIN_TOKEN is the harness's admin bearer token. */
export const ADMIN_TOKEN = 'cluster-admin-token';

/** ClusterHarness is a running in-process cluster API. */
export interface ClusterHarness {
  readonly app: FogbankServer;
  readonly store: MemoryStore;
  readonly clock: ManualClock;
  /** control is the server's test controls: its controllable clock and the timers measured on it (advancing it fires them). */
  readonly control: ControlPlane;
  /** call sends a request as the admin (unless headers override) and parses a JSON answer. */
  call(method: HTTPMethods, url: string, body?: unknown, headers?: Record<string, string>): Promise<HarnessResponse>;
  /** listen gives the loopback base URL it serves on (for streaming tests). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** HarnessResponse is an answer with its body parsed when it is JSON. */
export interface HarnessResponse {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of any resource's response body
  readonly body: any;
  readonly headers: LightMyRequestResponse['headers'];
  readonly raw: LightMyRequestResponse;
}

/** startHarness starts the family alone (src/testing/fogbank.ts) on a fresh memory store. */
export async function startHarness(
  options: ClusterOptions & { readonly store?: MemoryStoreOptions; readonly bodyLimit?: number } = {},
): Promise<ClusterHarness> {
  const store = new MemoryStore(options.store ?? {});
  const clock = new ManualClock(new Date('2025-01-01T00:00:00Z'));
  const server = await startFogbank({
    ephemeral: true,
    store,
    clock,
    ids: seededIds('cluster'),
    adminToken: ADMIN_TOKEN,
    tokens: [{ token: 'alice-token', email: 'alice@example.com', scopes: [], permissions: [], groups: ['devs'] }],
    operations: 'instant',
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Without the default policy unless asked, so tests see only the objects they write.
    services: [createClusterService({ ...options, bootstrapPolicy: options.bootstrapPolicy ?? false })],
  });
  const { app } = server;
  return {
    app,
    store,
    clock,
    control: server.control,
    async call(method, url, body, headers = {}): Promise<HarnessResponse> {
      const raw: LightMyRequestResponse = await app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      let parsed: unknown = raw.body;
      try {
        parsed = JSON.parse(raw.body);
      } catch {
        // Not JSON: keep the text.
      }
      return { status: raw.statusCode, body: parsed, headers: raw.headers, raw };
    },
    listen: async () => server.url,
    close: () => server.close(),
  };
}
