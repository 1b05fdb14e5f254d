/**
 * The guard's reverse proxy (node:http): every request is evaluated against the policy before
 * anything reaches the upstream; a denied one is answered with Cloud Armor's page and status, a
 * redirect with 302 and its Location, an allowed one streamed to the upstream and back (HTTP/1.1
 * keep-alive on both sides, bodies never buffered, WebSocket upgrades passed through), with
 * hop-by-hop headers dropped, X-Forwarded-For appended and the policy's headers added. What the
 * proxy itself cannot do is answered by it, in one plain line: an unreadable request 400, no
 * policy (deleted, or not yet read) or an unreachable upstream 502. Each exchange is reported.
 */
import { Agent, type IncomingMessage, request as httpRequest, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Exchange } from './log-record.ts';
import { clientAddress, downstreamHeaders, type HeaderPair, pairsOf, peerAddress, policyHeaders, requestUrl, upstreamHeaders } from './proxy-headers.ts';
import { DENY_PAGE_CONTENT_TYPE, type Decision, denyPage, readLatin1Utf8, type TrafficRequest } from './engine.ts';

/** Verdict is what the policy says of a request, why there is no policy to ask (502), or why the request cannot be evaluated (400). */
export type Verdict = { readonly decision: Decision } | { readonly unavailable: string } | { readonly unreadable: string };

/** GuardOptions configure one proxy. */
export interface GuardOptions {
  /** upstream is the origin requests are forwarded to (`http://127.0.0.1:3000`). */
  readonly upstream: URL;
  /** trustedProxies is how many proxies in front append to X-Forwarded-For (`--trust-xff N`), 0 for none. */
  readonly trustedProxies: number;
  /** decide evaluates one request against the policy as it is now. */
  decide(request: TrafficRequest): Verdict;
  /** report hears every exchange once it is over. */
  report(exchange: Exchange): void;
}

/** plainAnswer is a short text answer of the guard's own (not the policy's, not the upstream's). */
function plainAnswer(response: ServerResponse, status: number, line: string): void {
  const body = `${line}\n`;
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** rawAnswer writes a whole answer on a socket that left HTTP (an upgrade), then closes it. */
function rawAnswer(socket: Duplex, status: number, reason: string, headers: Readonly<Record<string, string>>, body: string): void {
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' }).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** REASONS are the reason phrases of the statuses the guard answers itself. */
const REASONS: Readonly<Record<number, string>> = {
  302: 'Found',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
};

/** Prepared is a request read for the policy, or the reason it cannot be. */
type Prepared = { readonly traffic: TrafficRequest; readonly pairs: HeaderPair[]; readonly peer: string } | { readonly unreadable: string };

/** startGuard starts the proxy on host:port (0 for any free port) and resolves with its server. */
export async function startGuard(options: GuardOptions, host: string, port: number): Promise<Server> {
  const agent = new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 256 });
  const upstreamHost = options.upstream.hostname.replace(/^\[|\]$/g, '');
  const upstreamPort = Number(options.upstream.port || 80);
  const upstreamPrefix = options.upstream.pathname.replace(/\/$/, '');

  const prepare = (request: IncomingMessage): Prepared => {
    const pairs = pairsOf(request.rawHeaders);
    // The request line's bytes (one character per byte) read as UTF-8 text, as header values are.
    const raw = requestUrl(request.url ?? '', request.headers.host);
    const url = raw === undefined ? undefined : readLatin1Utf8(raw);
    if (url === undefined)
      return { unreadable: `guard: cannot read '${(request.url ?? '').slice(0, 200)}' with Host '${(request.headers.host ?? '').slice(0, 200)}' as a URL` };
    const peer = peerAddress(request.socket.remoteAddress);
    const traffic: TrafficRequest = {
      method: request.method ?? 'GET',
      url,
      headers: policyHeaders(pairs),
      sourceIp: clientAddress(peer, pairs, options.trustedProxies),
      httpVersion: request.httpVersion,
    };
    return { traffic, pairs, peer };
  };

  /** upstreamPath is the path and query to ask the upstream for (an absolute-form target, which requestUrl has parsed, reduced to its path). */
  const upstreamPath = (target: string): string => {
    if (target.startsWith('/')) return `${upstreamPrefix}${target}`;
    const parsed = new URL(target);
    return `${upstreamPrefix}${parsed.pathname}${parsed.search}`;
  };

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (request, response) => {
    const started = performance.now();
    const time = Date.now();
    const prepared = prepare(request);
    let enforced: Readonly<Record<string, unknown>> | undefined;
    let preview: Readonly<Record<string, unknown>> | undefined;
    let requestData: Readonly<Record<string, unknown>> | undefined;
    let statusDetails = 'response_sent_by_backend';
    const remoteIp = 'traffic' in prepared ? prepared.traffic.sourceIp : peerAddress(request.socket.remoteAddress);
    response.once('close', () => {
      options.report({
        time,
        method: request.method ?? '',
        url: 'traffic' in prepared ? prepared.traffic.url : (request.url ?? ''),
        target: request.url ?? '',
        status: response.statusCode,
        remoteIp,
        latencyMs: performance.now() - started,
        userAgent: request.headers['user-agent'],
        statusDetails,
        enforced,
        preview,
        requestData,
      });
    });
    if ('unreadable' in prepared) {
      statusDetails = 'request_unreadable_by_guard';
      request.resume();
      plainAnswer(response, 400, prepared.unreadable);
      return;
    }
    const verdict = options.decide(prepared.traffic);
    if ('unreadable' in verdict) {
      statusDetails = 'request_unreadable_by_guard';
      request.resume();
      plainAnswer(response, 400, verdict.unreadable);
      return;
    }
    if ('unavailable' in verdict) {
      statusDetails = 'no_security_policy';
      request.resume();
      plainAnswer(response, 502, verdict.unavailable);
      return;
    }
    const decision = verdict.decision;
    enforced = decision.enforcedSecurityPolicy as unknown as Record<string, unknown>;
    preview = decision.previewSecurityPolicy as unknown as Record<string, unknown> | undefined;
    requestData = decision.securityPolicyRequestData as unknown as Record<string, unknown>;
    const answer = decision.response;
    if (answer.kind === 'deny') {
      statusDetails = decision.statusDetails ?? 'denied_by_security_policy';
      request.resume();
      const page = denyPage(answer.status);
      response.writeHead(answer.status, { 'content-type': DENY_PAGE_CONTENT_TYPE, 'content-length': Buffer.byteLength(page) });
      response.end(page);
      return;
    }
    if (answer.kind === 'redirect') {
      statusDetails = decision.statusDetails ?? 'redirected_by_security_policy';
      request.resume();
      if (answer.location === undefined) {
        plainAnswer(response, 403, 'guard: the policy redirects this request to a reCAPTCHA assessment, which cannot run locally');
        return;
      }
      response.writeHead(302, { location: answer.location, 'content-length': '0' });
      response.end();
      return;
    }
    const outgoing = httpRequest({
      agent,
      host: upstreamHost,
      port: upstreamPort,
      method: request.method,
      path: upstreamPath(request.url ?? '/'),
      headers: upstreamHeaders(prepared.pairs, prepared.peer, decision.headersToAdd, false),
    });
    outgoing.on('response', (upstream) => {
      response.writeHead(upstream.statusCode ?? 502, upstream.statusMessage, downstreamHeaders(upstream.rawHeaders));
      upstream.pipe(response);
      upstream.on('error', () => response.destroy());
      upstream.on('aborted', () => response.destroy());
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      statusDetails = 'failed_to_connect_to_backend';
      request.resume();
      plainAnswer(response, 502, `guard: the upstream ${options.upstream.origin} cannot be reached (${error.code ?? error.message})`);
    });
    // The client leaving mid-request ends the upstream exchange too.
    response.once('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3): the
    // upstream request ends at once instead of a tick later through a pipe.
    if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) {
      request.resume();
      outgoing.end();
    } else request.pipe(outgoing);
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const started = performance.now();
    const time = Date.now();
    socket.on('error', () => socket.destroy());
    const prepared = prepare(request);
    const report = (status: number, statusDetails: string, decision?: Decision): void =>
      options.report({
        time,
        method: request.method ?? '',
        url: 'traffic' in prepared ? prepared.traffic.url : (request.url ?? ''),
        target: request.url ?? '',
        status,
        remoteIp: 'traffic' in prepared ? prepared.traffic.sourceIp : peerAddress(request.socket.remoteAddress),
        latencyMs: performance.now() - started,
        userAgent: request.headers['user-agent'],
        statusDetails,
        enforced: decision?.enforcedSecurityPolicy as unknown as Record<string, unknown> | undefined,
        preview: decision?.previewSecurityPolicy as unknown as Record<string, unknown> | undefined,
        requestData: decision?.securityPolicyRequestData as unknown as Record<string, unknown> | undefined,
      });
    if ('unreadable' in prepared) {
      rawAnswer(socket, 400, 'Bad Request', { 'content-type': 'text/plain; charset=utf-8' }, `${prepared.unreadable}\n`);
      report(400, 'request_unreadable_by_guard');
      return;
    }
    const verdict = options.decide(prepared.traffic);
    if ('unreadable' in verdict) {
      rawAnswer(socket, 400, 'Bad Request', { 'content-type': 'text/plain; charset=utf-8' }, `${verdict.unreadable}\n`);
      report(400, 'request_unreadable_by_guard');
      return;
    }
    if ('unavailable' in verdict) {
      rawAnswer(socket, 502, 'Bad Gateway', { 'content-type': 'text/plain; charset=utf-8' }, `${verdict.unavailable}\n`);
      report(502, 'no_security_policy');
      return;
    }
    const { decision } = verdict;
    const answer = decision.response;
    if (answer.kind !== 'forward') {
      // A denied upgrade is blocked; nothing of the connection reaches the upstream.
      if (answer.kind === 'deny')
        rawAnswer(socket, answer.status, REASONS[answer.status] ?? 'Denied', { 'content-type': DENY_PAGE_CONTENT_TYPE }, denyPage(answer.status));
      else if (answer.location !== undefined) rawAnswer(socket, 302, 'Found', { location: answer.location }, '');
      else rawAnswer(socket, 403, 'Forbidden', { 'content-type': 'text/plain; charset=utf-8' }, 'guard: reCAPTCHA assessment cannot run locally\n');
      report(
        answer.kind === 'deny' ? answer.status : answer.location !== undefined ? 302 : 403,
        decision.statusDetails ?? 'denied_by_security_policy',
        decision,
      );
      return;
    }
    const outgoing = httpRequest({
      host: upstreamHost,
      port: upstreamPort,
      method: request.method,
      path: upstreamPath(request.url ?? '/'),
      headers: upstreamHeaders(prepared.pairs, prepared.peer, decision.headersToAdd, true),
    });
    outgoing.on('upgrade', (upstream, upstreamSocket, upstreamHead) => {
      const lines = [`HTTP/1.1 101 ${upstream.statusMessage ?? 'Switching Protocols'}`];
      const raw = upstream.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      // Either side closing ends the other: no half of a tunnel outlives its peer.
      upstreamSocket.on('error', () => socket.destroy());
      socket.on('error', () => upstreamSocket.destroy());
      upstreamSocket.once('close', () => socket.destroy());
      socket.once('close', () => upstreamSocket.destroy());
      upstreamSocket.pipe(socket);
      socket.pipe(upstreamSocket);
      report(101, 'response_sent_by_backend', decision);
    });
    outgoing.on('response', (upstream) => {
      // The upstream declined the upgrade: its answer goes back as it is, and the connection ends.
      const lines = [`HTTP/1.1 ${upstream.statusCode} ${upstream.statusMessage ?? ''}`];
      const raw = downstreamHeaders(upstream.rawHeaders);
      for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
      lines.push('connection: close');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.pipe(socket);
      report(upstream.statusCode ?? 502, 'response_sent_by_backend', decision);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      rawAnswer(
        socket,
        502,
        'Bad Gateway',
        { 'content-type': 'text/plain; charset=utf-8' },
        `guard: the upstream ${options.upstream.origin} cannot be reached (${error.code ?? error.message})\n`,
      );
      report(502, 'failed_to_connect_to_backend', decision);
    });
    outgoing.end();
  });

  // A request node cannot parse (a broken request line, a bad header) gets a 400, never a crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = `guard: the request cannot be read (${error.code ?? 'malformed'})\n`;
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.once('close', () => agent.destroy());
  return server;
}
