/**
 * A guard and an upstream in this process, for tests that drive the proxy over raw sockets: the
 * upstream records what reached it (method, target and headers, by arrival) and answers by path
 * (`/hang` never answers, `/stream` sends an event stream's head and stays open, `/status099`
 * and `/bad-header` answer what no proxy can relay, anything else a small JSON echo); the guard
 * enforces an inline policy (the compute API's JSON form) with compute's engine, as
 * `fogbank guard` does, without a fogbank to follow.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../lib/clock.ts';
import { compileEnforceable, decideOn } from '../enforceable-policy.ts';
import { RateLimitState, type TrafficRequest, WafEngine } from '../engine.ts';
import { type GuardLimits, startGuard, type Verdict } from '../guard-server.ts';
import type { Exchange } from '../log-record.ts';

/** Arrival is one request as the upstream received it. */
export interface Arrival {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  /** body collects the request body's chunks as they arrive. */
  readonly body: Buffer[];
}

/** RecordingUpstream is a test upstream and what reached it. */
export interface RecordingUpstream {
  readonly url: URL;
  readonly arrivals: Arrival[];
  close(): Promise<void>;
}

/** startRecordingUpstream starts the upstream on a free port of 127.0.0.1. */
export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const arrivals: Arrival[] = [];
  const server = createServer((request, response) => {
    const body: Buffer[] = [];
    arrivals.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, rawHeaders: request.rawHeaders, body });
    const path = (request.url ?? '').split('?')[0];
    if (path === '/hang') return;
    if (path === '/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: open\n\n');
      return;
    }
    if (path === '/status099' || path === '/bad-header') {
      request.socket.end(
        path === '/status099' ? 'HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n' : 'HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\ncontent-length: 0\r\n\r\n',
      );
      return;
    }
    request.on('data', (chunk: Buffer) => body.push(chunk));
    request.on('end', () => {
      const answer = JSON.stringify({ url: request.url });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      response.end(answer);
    });
  });
  server.on('upgrade', (request, socket) => {
    arrivals.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, rawHeaders: request.rawHeaders, body: [] });
    socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    arrivals,
    close: () => closeServer(server),
  };
}

/** InlineGuard is a started guard and what it reported. */
export interface InlineGuard {
  readonly port: number;
  readonly exchanges: Exchange[];
  readonly failures: unknown[];
  close(): Promise<void>;
}

/** InlineGuardOptions choose the policy, the limits and, for tests of the proxy itself, a decide that wraps the policy's. */
export interface InlineGuardOptions {
  readonly policy: Readonly<Record<string, unknown>>;
  readonly upstream: URL;
  readonly limits?: GuardLimits;
  readonly wrapDecide?: (decide: (request: TrafficRequest) => Verdict | Promise<Verdict>) => (request: TrafficRequest) => Verdict | Promise<Verdict>;
  /** failed hears what threw inside the guard (besides being kept in `failures`). */
  readonly failed?: (error: unknown) => void;
}

/** startInlineGuard starts a guard enforcing `policy` on a free port of 127.0.0.1. */
export async function startInlineGuard(options: InlineGuardOptions): Promise<InlineGuard> {
  const enforceable = compileEnforceable(options.policy, {
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    wafUnknown: 'no-match',
    rateLimits: new RateLimitState(),
    explain: false,
  });
  // A policy calling preconfigured WAF sets is inspected by the engine first, as fogbank guard does.
  const plan = enforceable.compiled.wafPlan;
  const waf = plan === undefined ? undefined : new WafEngine();
  const decide = (request: TrafficRequest): Verdict | Promise<Verdict> =>
    plan === undefined || waf === undefined
      ? decideOn(enforceable, request)
      : waf.inspect(plan, request).then((findings) => decideOn(enforceable, request, findings));
  const exchanges: Exchange[] = [];
  const failures: unknown[] = [];
  const server = await startGuard(
    {
      upstream: options.upstream,
      trustedProxies: 0,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      decide: options.wrapDecide?.(decide) ?? decide,
      inspectedBody: () => plan?.inspectionLimit,
      report: (exchange) => exchanges.push(exchange),
      failed: (error) => {
        failures.push(error);
        options.failed?.(error);
      },
    },
    '127.0.0.1',
    0,
  );
  return {
    port: (server.address() as AddressInfo).port,
    exchanges,
    failures,
    close: async () => {
      await closeServer(server);
      await waf?.close();
    },
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
