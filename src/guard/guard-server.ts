/**
 * The guard's reverse proxy (node:http): every request is evaluated against the policy before
 * anything reaches the upstream; a denied one is answered with Cloud Armor's page and status, a
 * redirect with 302 and its Location, an allowed one streamed to the upstream and back (HTTP/1.1
 * keep-alive on both sides, bodies never buffered, WebSocket upgrades passed through), with
 * hop-by-hop headers dropped, X-Forwarded-For appended and the policy's headers added.
 *
 * The target is read once (request-target.ts) and the upstream asked for exactly the path and
 * query decided on; framing two readers could read differently is refused (request-framing.ts).
 * What the proxy itself answers is one plain line (guard-answers.ts): an unreadable request 400,
 * a body that does not arrive in time 408, no policy or a rule it cannot enforce 502, an upstream
 * unreachable, answering what cannot be relayed or failing in the process 502, an upstream too
 * slow 504, a full queue 503. No request, answer or policy can end the process: whatever throws
 * while handling a request is answered 502 and the guard goes on serving. Each exchange is reported.
 */
import {
  Agent,
  type ClientRequest,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
  createServer,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { DENY_PAGE_CONTENT_TYPE, type Decision, denyPage, readLatin1Utf8, type TrafficRequest } from './engine.ts';
import { errorText, plainAnswer, rawAnswer, REASONS } from './guard-answers.ts';
import type { Exchange } from './log-record.ts';
import { clientAddress, downstreamHeaders, type HeaderPair, type HeaderToAdd, pairsOf, peerAddress, policyHeaders, upstreamHeaders } from './proxy-headers.ts';
import { framingProblem } from './request-framing.ts';
import { readTarget } from './request-target.ts';
import { type Ticket, UpstreamSlots } from './upstream-slots.ts';

/**
 * Verdict is what the policy says of a request; or the decision of a rule the guard cannot enforce
 * (answered 502 with the reason); why there is no policy to ask (502); or why the request cannot
 * be evaluated (400).
 */
export type Verdict =
  | { readonly decision: Decision; readonly unenforceable?: string }
  /** No policy to consult (a backend service with none attached): forwarded as is. */
  | { readonly open: true }
  | { readonly unavailable: string }
  | { readonly unreadable: string };

/** GuardLimits bound what one client or a slow upstream can take from the others. */
export interface GuardLimits {
  /** bodyTimeoutMs is how long a request's body may take to arrive in full (`--body-timeout`). */
  readonly bodyTimeoutMs: number;
  /** upstreamTimeoutMs is how long the upstream may take to begin its answer, time in the queue included (`--upstream-timeout`). */
  readonly upstreamTimeoutMs: number;
  /** concurrency is how many exchanges may wait on the upstream's answer at once (`--concurrency`). */
  readonly concurrency: number;
  /** queue is how many requests may wait for one of those places; past it the guard answers 503 (`--queue`). */
  readonly queue: number;
}

/** DEFAULT_LIMITS are the limits of `fogbank guard` without flags (30 s is a load balancer backend service's default timeout). */
export const DEFAULT_LIMITS: GuardLimits = { bodyTimeoutMs: 30_000, upstreamTimeoutMs: 30_000, concurrency: 1024, queue: 1024 };

/** GuardOptions configure one proxy. */
export interface GuardOptions {
  /** upstream is the origin requests are forwarded to (`http://127.0.0.1:3000`). */
  readonly upstream: URL;
  /** trustedProxies is how many proxies in front append to X-Forwarded-For (`--trust-xff N`), 0 for none. */
  readonly trustedProxies: number;
  /** limits default to DEFAULT_LIMITS. */
  readonly limits?: GuardLimits;
  /**
   * decide evaluates one request against the policy as it is now; a promise when the policy's WAF
   * calls need the request inspected first (the engine runs on threads).
   */
  decide(request: TrafficRequest): Verdict | Promise<Verdict>;
  /**
   * inspectedBody is how many body bytes the policy as it is now inspects (its WAF calls read the
   * body), undefined when it reads none: the proxy then buffers that much of a body, and no more,
   * before deciding, and forwards what it buffered followed by the rest.
   */
  inspectedBody?(): number | undefined;
  /** clock stamps each exchange (fogbank's clock, as the rate limits count on it); the machine's when absent. */
  readonly clock?: { now(): number };
  /** report hears every exchange once it is over. */
  report(exchange: Exchange): void;
  /** failed hears what threw while a request was handled (the request itself was answered 502). */
  failed?(error: unknown): void;
}

/** Prepared is a request read for the policy, or the reason it cannot be. */
type Prepared =
  | { readonly traffic: TrafficRequest; readonly pairs: HeaderPair[]; readonly peer: string; readonly forward: string }
  | { readonly unreadable: string };

/** BufferedBody is the start of a request body read before deciding: at least the inspected bytes, or all of it (`ended`). */
interface BufferedBody {
  readonly bytes: Buffer;
  readonly ended: boolean;
}

/**
 * bufferBody reads a request body until `limit` bytes or its end, then pauses it; undefined when it
 * did not get that far within `timeoutMs`. At most one read past the limit is held (a socket read).
 */
function bufferBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<BufferedBody | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (ended: boolean | undefined): void => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onError);
      if (ended === undefined) {
        resolve(undefined);
        return;
      }
      if (!ended) request.pause();
      resolve({ bytes: Buffer.concat(chunks, size), ended });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) done(false);
    };
    const onEnd = (): void => done(true);
    const onError = (): void => done(undefined);
    const timer = setTimeout(() => done(undefined), timeoutMs);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
    request.once('aborted', onError);
  });
}

/** CONNECTION_SCHEME is the scheme of the guard's connections: `request.scheme` is the connection's, never the request line's. */
const CONNECTION_SCHEME = 'http';

/** startGuard starts the proxy on host:port (0 for any free port) and resolves with its server. */
export async function startGuard(options: GuardOptions, host: string, port: number): Promise<Server> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  // Sockets are kept alive for reuse but never capped: no exchange waits for a socket another holds.
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 256 });
  const slots = new UpstreamSlots(limits.concurrency, limits.queue);
  const upstreamHost = options.upstream.hostname.replace(/^\[|\]$/g, '');
  const upstreamPort = Number(options.upstream.port || 80);
  const upstreamPrefix = options.upstream.pathname.replace(/\/$/, '');
  const upstreamOrigin = options.upstream.origin;

  const safely = (what: () => void, onError: (error: unknown) => void): void => {
    try {
      what();
    } catch (error) {
      try {
        options.failed?.(error);
        onError(error);
      } catch {
        // Even answering the failure failed: nothing more can be said on this exchange.
      }
    }
  };
  const report = (exchange: Exchange): void =>
    safely(
      () => options.report(exchange),
      () => undefined,
    );

  const prepare = (request: IncomingMessage): Prepared => {
    const raw = pairsOf(request.rawHeaders);
    const framing = framingProblem(raw, request.httpVersion);
    if (framing !== undefined) return { unreadable: framing };
    const target = readTarget(request.url ?? '', request.headers.host, CONNECTION_SCHEME);
    if ('refused' in target) return { unreadable: target.refused };
    // An absolute-form target's authority is the Host, for the policy and the upstream alike (RFC 9112 §3.2.2).
    let pairs = raw;
    if (request.headers.host !== target.host) {
      pairs = raw.filter(([name]) => name.toLowerCase() !== 'host');
      pairs.unshift(['Host', target.host]);
    }
    const peer = peerAddress(request.socket.remoteAddress);
    const traffic: TrafficRequest = {
      method: request.method ?? 'GET',
      // The request line's bytes (one character per byte) read as UTF-8 text, as header values are.
      url: readLatin1Utf8(target.url),
      headers: policyHeaders(pairs),
      sourceIp: clientAddress(peer, pairs, options.trustedProxies),
      httpVersion: request.httpVersion,
    };
    return { traffic, pairs, peer, forward: `${upstreamPrefix}${target.forward}` };
  };

  /** writableHeaders says why headers cannot be written on a node message, or undefined when they can. */
  const unwritable = (raw: readonly string[]): string | undefined => {
    try {
      for (let i = 0; i + 1 < raw.length; i += 2) {
        validateHeaderName(raw[i]!);
        validateHeaderValue(raw[i]!, raw[i + 1]!);
      }
      return undefined;
    } catch (error) {
      return errorText(error);
    }
  };

  /**
   * unwritableAdded says why the policy's headers cannot be written, asked once per list (a rule's
   * list is one array, shared by every request it decides). The client's own headers need no such
   * check: node's parser read them, and node writes back whatever it reads.
   */
  const addedVerdicts = new WeakMap<readonly HeaderToAdd[], string | undefined>();
  const unwritableAdded = (added: readonly HeaderToAdd[]): string | undefined => {
    if (added.length === 0) return undefined;
    if (addedVerdicts.has(added)) return addedVerdicts.get(added);
    const verdict = unwritable(added.flatMap((header) => [header.name, header.value]));
    addedVerdicts.set(added, verdict);
    return verdict;
  };

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (request, response) => {
    const started = performance.now();
    const time = options.clock?.now() ?? Date.now();
    let prepared: Prepared = { unreadable: '' };
    let enforced: Readonly<Record<string, unknown>> | undefined;
    let preview: Readonly<Record<string, unknown>> | undefined;
    let requestData: Readonly<Record<string, unknown>> | undefined;
    let statusDetails = 'response_sent_by_backend';
    const own = (status: number, details: string, line: string): void => {
      statusDetails = details;
      if (response.headersSent) {
        response.destroy();
        return;
      }
      plainAnswer(response, status, line);
    };
    response.once('close', () => {
      report({
        time,
        method: request.method ?? '',
        url: 'traffic' in prepared ? prepared.traffic.url : (request.url ?? ''),
        target: request.url ?? '',
        status: response.statusCode,
        remoteIp: 'traffic' in prepared ? prepared.traffic.sourceIp : peerAddress(request.socket.remoteAddress),
        latencyMs: performance.now() - started,
        userAgent: request.headers['user-agent'],
        statusDetails,
        ...('traffic' in prepared ? { headers: prepared.traffic.headers } : {}),
        enforced,
        preview,
        requestData,
      });
    });
    const fail = (error: unknown): void => {
      request.resume();
      own(502, 'guard_internal_error', `guard: the request could not be handled (${errorText(error)})`);
    };
    safely(() => {
      prepared = prepare(request);
      if ('unreadable' in prepared) {
        request.resume();
        own(400, 'request_unreadable_by_guard', prepared.unreadable);
        return;
      }
      const limit = options.inspectedBody?.();
      const hasBody = request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
      if (limit === undefined || !hasBody) {
        const decided = options.decide(prepared.traffic);
        if (decided instanceof Promise) decided.then((verdict) => safely(() => act(verdict, undefined), fail), fail);
        else act(decided, undefined);
        return;
      }
      const ready = prepared;
      bufferBody(request, limit, limits.bodyTimeoutMs).then(
        (buffered) =>
          safely(() => {
            if (buffered === undefined) {
              response.shouldKeepAlive = false;
              own(408, 'request_body_timeout', `guard: the request body did not arrive within ${limits.bodyTimeoutMs / 1000} s`);
              request.socket.destroySoon();
              return;
            }
            const traffic: TrafficRequest = { ...ready.traffic, body: buffered.bytes.subarray(0, limit) };
            Promise.resolve(options.decide(traffic)).then((verdict) => safely(() => act(verdict, buffered), fail), fail);
          }, fail),
        fail,
      );
    }, fail);

    /** act does what the verdict says; `buffered` is the body's start the guard read to decide, if it did. */
    function act(verdict: Verdict, buffered: BufferedBody | undefined): void {
      if (!('traffic' in prepared)) return;
      if ('unreadable' in verdict) {
        request.resume();
        own(400, 'request_unreadable_by_guard', verdict.unreadable);
        return;
      }
      if ('unavailable' in verdict) {
        request.resume();
        own(502, 'no_security_policy', verdict.unavailable);
        return;
      }
      if ('open' in verdict) {
        forward(request, response, prepared, upstreamHeaders(prepared.pairs, prepared.peer, [], false), own, fail, buffered);
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
      if (verdict.unenforceable !== undefined) {
        request.resume();
        own(502, 'rule_unenforceable_by_guard', verdict.unenforceable);
        return;
      }
      const cannotWrite = unwritableAdded(decision.headersToAdd);
      if (cannotWrite !== undefined) {
        request.resume();
        own(502, 'rule_unenforceable_by_guard', `guard: the request cannot be forwarded with the policy's headers (${cannotWrite})`);
        return;
      }
      const headers = upstreamHeaders(prepared.pairs, prepared.peer, decision.headersToAdd, false);
      forward(request, response, prepared, headers, own, fail, buffered);
    }
  });

  /** forward sends an allowed request upstream (once a slot is free) and streams the answer back. */
  const forward = (
    request: IncomingMessage,
    response: ServerResponse,
    prepared: Extract<Prepared, { traffic: TrafficRequest }>,
    headers: string[],
    own: (status: number, details: string, line: string) => void,
    fail: (error: unknown) => void,
    buffered?: BufferedBody,
  ): void => {
    let outgoing: ClientRequest | undefined;
    let ticket: Ticket | undefined;
    let answered = false;
    const hasBody = request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
    const bodyEnded = buffered?.ended === true;
    const upstreamTimer = setTimeout(() => {
      ticket?.release();
      outgoing?.destroy();
      request.resume();
      own(504, 'backend_timeout', `guard: the upstream ${upstreamOrigin} did not answer within ${limits.upstreamTimeoutMs / 1000} s`);
    }, limits.upstreamTimeoutMs);
    // A body must arrive in full in time: a client trickling one cannot hold its place for ever.
    const bodyTimer =
      hasBody && !bodyEnded
        ? setTimeout(() => {
            clearTimeout(upstreamTimer);
            ticket?.release();
            outgoing?.destroy();
            response.shouldKeepAlive = false;
            own(408, 'request_body_timeout', `guard: the request body did not arrive within ${limits.bodyTimeoutMs / 1000} s`);
            request.socket.destroySoon();
          }, limits.bodyTimeoutMs)
        : undefined;
    if (bodyTimer !== undefined) request.once('end', () => clearTimeout(bodyTimer));
    const settle = (): void => {
      clearTimeout(upstreamTimer);
      clearTimeout(bodyTimer);
      ticket?.release();
    };
    // The client leaving mid-request ends the upstream exchange too.
    response.once('close', () => {
      settle();
      if (!response.writableFinished) outgoing?.destroy();
    });
    const start = (): void =>
      safely(() => {
        if (response.writableEnded || response.destroyed) return;
        const sent = httpRequest({ agent, host: upstreamHost, port: upstreamPort, method: request.method, path: prepared.forward, headers });
        outgoing = sent;
        sent.on('response', (upstream) =>
          safely(() => {
            // The answer's head is in: a streamed answer no longer holds a place others wait for.
            clearTimeout(upstreamTimer);
            ticket?.release();
            answered = true;
            const status = upstream.statusCode ?? 0;
            const relayed = downstreamHeaders(upstream.rawHeaders);
            const problem = status < 200 || status > 599 ? `status ${String(status).padStart(3, '0')}` : unwritable(relayed);
            if (problem !== undefined) {
              upstream.resume();
              sent.destroy();
              own(502, 'backend_response_unrelayable_by_guard', `guard: the upstream ${upstreamOrigin} answered what cannot be relayed (${problem})`);
              return;
            }
            const reason = upstream.statusMessage !== undefined && unwritable(['x', upstream.statusMessage]) === undefined ? upstream.statusMessage : undefined;
            response.writeHead(status, reason, relayed);
            upstream.pipe(response);
            upstream.on('error', () => response.destroy());
            upstream.on('aborted', () => response.destroy());
          }, fail),
        );
        sent.on('error', (error: NodeJS.ErrnoException) =>
          safely(() => {
            if (response.headersSent || response.writableEnded) {
              response.destroy();
              return;
            }
            request.resume();
            const code = error.code ?? error.message;
            if (answered || code.startsWith('HPE_'))
              own(502, 'backend_response_unrelayable_by_guard', `guard: the upstream ${upstreamOrigin} answered what cannot be read (${code})`);
            else own(502, 'failed_to_connect_to_backend', `guard: the upstream ${upstreamOrigin} cannot be reached (${code})`);
          }, fail),
        );
        // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3): the
        // upstream request ends at once instead of a tick later through a pipe.
        if (!hasBody) {
          request.resume();
          sent.end();
        } else if (buffered !== undefined) {
          // What was read to decide goes first, then the rest as it comes.
          if (bodyEnded) sent.end(buffered.bytes);
          else {
            sent.write(buffered.bytes);
            request.pipe(sent);
          }
        } else request.pipe(sent);
      }, fail);
    ticket = slots.acquire(start);
    if (ticket === undefined) {
      settle();
      request.resume();
      own(503, 'guard_queue_full', `guard: ${slots.busy} requests are waiting on the upstream and ${slots.queued} more for their turn; try again later`);
    }
  };

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const started = performance.now();
    const time = options.clock?.now() ?? Date.now();
    socket.on('error', () => socket.destroy());
    let prepared: Prepared = { unreadable: '' };
    const upgradeReport = (status: number, statusDetails: string, decision?: Decision): void =>
      report({
        time,
        method: request.method ?? '',
        url: 'traffic' in prepared ? prepared.traffic.url : (request.url ?? ''),
        target: request.url ?? '',
        status,
        remoteIp: 'traffic' in prepared ? prepared.traffic.sourceIp : peerAddress(request.socket.remoteAddress),
        latencyMs: performance.now() - started,
        userAgent: request.headers['user-agent'],
        statusDetails,
        ...('traffic' in prepared ? { headers: prepared.traffic.headers } : {}),
        enforced: decision?.enforcedSecurityPolicy as unknown as Record<string, unknown> | undefined,
        preview: decision?.previewSecurityPolicy as unknown as Record<string, unknown> | undefined,
        requestData: decision?.securityPolicyRequestData as unknown as Record<string, unknown> | undefined,
      });
    const ownRaw = (status: number, details: string, line: string, decision?: Decision): void => {
      rawAnswer(socket, status, { 'content-type': 'text/plain; charset=utf-8' }, `${line}\n`);
      upgradeReport(status, details, decision);
    };
    const fail = (error: unknown): void => ownRaw(502, 'guard_internal_error', `guard: the request could not be handled (${errorText(error)})`);
    safely(() => {
      prepared = prepare(request);
      if ('unreadable' in prepared) {
        ownRaw(400, 'request_unreadable_by_guard', prepared.unreadable);
        return;
      }
      const decided = options.decide(prepared.traffic);
      if (decided instanceof Promise) decided.then((verdict) => safely(() => upgradeOn(verdict), fail), fail);
      else upgradeOn(decided);
    }, fail);
    /** upgradeOn does what the verdict says of an upgrade request. */
    function upgradeOn(verdict: Verdict): void {
      if (!('traffic' in prepared)) return;
      if ('unreadable' in verdict) {
        ownRaw(400, 'request_unreadable_by_guard', verdict.unreadable);
        return;
      }
      if ('unavailable' in verdict) {
        ownRaw(502, 'no_security_policy', verdict.unavailable);
        return;
      }
      const decision = 'open' in verdict ? undefined : verdict.decision;
      const answer = decision?.response ?? { kind: 'forward' as const };
      if (answer.kind !== 'forward') {
        // A denied upgrade is blocked; nothing of the connection reaches the upstream.
        if (answer.kind === 'deny') rawAnswer(socket, answer.status, { 'content-type': DENY_PAGE_CONTENT_TYPE }, denyPage(answer.status));
        else if (answer.location !== undefined) rawAnswer(socket, 302, { location: answer.location }, '');
        else rawAnswer(socket, 403, { 'content-type': 'text/plain; charset=utf-8' }, 'guard: reCAPTCHA assessment cannot run locally\n');
        upgradeReport(
          answer.kind === 'deny' ? answer.status : answer.location !== undefined ? 302 : 403,
          decision?.statusDetails ?? 'denied_by_security_policy',
          decision,
        );
        return;
      }
      if ('unenforceable' in verdict && verdict.unenforceable !== undefined) {
        ownRaw(502, 'rule_unenforceable_by_guard', verdict.unenforceable, decision);
        return;
      }
      const cannotWrite = unwritableAdded(decision?.headersToAdd ?? []);
      if (cannotWrite !== undefined) {
        ownRaw(502, 'rule_unenforceable_by_guard', `guard: the request cannot be forwarded with the policy's headers (${cannotWrite})`, decision);
        return;
      }
      const headers = upstreamHeaders(prepared.pairs, prepared.peer, decision?.headersToAdd ?? [], true);
      const outgoing = httpRequest({ host: upstreamHost, port: upstreamPort, method: request.method, path: prepared.forward, headers });
      const timer = setTimeout(() => {
        outgoing.destroy();
        ownRaw(504, 'backend_timeout', `guard: the upstream ${upstreamOrigin} did not answer within ${limits.upstreamTimeoutMs / 1000} s`, decision);
      }, limits.upstreamTimeoutMs);
      socket.once('close', () => {
        clearTimeout(timer);
        outgoing.destroy();
      });
      outgoing.on('upgrade', (upstream, upstreamSocket, upstreamHead) =>
        safely(
          () => {
            clearTimeout(timer);
            const raw = upstream.rawHeaders;
            const problem = unwritable(raw);
            if (problem !== undefined) {
              upstreamSocket.destroy();
              ownRaw(
                502,
                'backend_response_unrelayable_by_guard',
                `guard: the upstream ${upstreamOrigin} answered what cannot be relayed (${problem})`,
                decision,
              );
              return;
            }
            const lines = [`HTTP/1.1 101 Switching Protocols`];
            for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
            socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
            if (upstreamHead.length > 0) socket.write(upstreamHead);
            if (head.length > 0) upstreamSocket.write(head);
            // Either side closing ends the other: no half of a tunnel outlives its peer.
            upstreamSocket.on('error', () => socket.destroy());
            socket.on('error', () => upstreamSocket.destroy());
            upstreamSocket.once('close', () => socket.destroy());
            socket.once('close', () => upstreamSocket.destroy());
            upstreamSocket.pipe(socket);
            socket.pipe(upstreamSocket);
            upgradeReport(101, 'response_sent_by_backend', decision);
          },
          () => {
            upstreamSocket.destroy();
            socket.destroy();
          },
        ),
      );
      outgoing.on('response', (upstream) =>
        safely(
          () => {
            clearTimeout(timer);
            // The upstream declined the upgrade: its answer goes back as it is, and the connection ends.
            const status = upstream.statusCode ?? 0;
            const raw = downstreamHeaders(upstream.rawHeaders);
            const problem = status < 200 || status > 599 ? `status ${String(status).padStart(3, '0')}` : unwritable(raw);
            if (problem !== undefined) {
              upstream.resume();
              outgoing.destroy();
              ownRaw(
                502,
                'backend_response_unrelayable_by_guard',
                `guard: the upstream ${upstreamOrigin} answered what cannot be relayed (${problem})`,
                decision,
              );
              return;
            }
            const message = upstream.statusMessage ?? '';
            const lines = [`HTTP/1.1 ${status} ${unwritable(['x', message]) === undefined ? message : (REASONS[status] ?? '')}`];
            for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
            lines.push('connection: close');
            socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
            upstream.pipe(socket);
            upgradeReport(status, 'response_sent_by_backend', decision);
          },
          () => socket.destroy(),
        ),
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        safely(
          () => {
            clearTimeout(timer);
            if (!socket.writable) return;
            const code = error.code ?? error.message;
            if (code.startsWith('HPE_'))
              ownRaw(502, 'backend_response_unrelayable_by_guard', `guard: the upstream ${upstreamOrigin} answered what cannot be read (${code})`, decision);
            else ownRaw(502, 'failed_to_connect_to_backend', `guard: the upstream ${upstreamOrigin} cannot be reached (${code})`, decision);
          },
          () => socket.destroy(),
        ),
      );
      outgoing.end();
    }
  });

  // CONNECT asks for a tunnel to any host: a reverse proxy in front of one upstream never opens one.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    safely(
      () => {
        rawAnswer(
          socket,
          400,
          { 'content-type': 'text/plain; charset=utf-8' },
          'guard: CONNECT is not proxied: the guard forwards requests to its upstream only\n',
        );
        report({
          time: Date.now(),
          method: request.method ?? 'CONNECT',
          url: request.url ?? '',
          target: request.url ?? '',
          status: 400,
          remoteIp: peerAddress(request.socket.remoteAddress),
          latencyMs: 0,
          userAgent: request.headers['user-agent'],
          statusDetails: 'request_unreadable_by_guard',
          enforced: undefined,
          preview: undefined,
          requestData: undefined,
        });
      },
      () => socket.destroy(),
    );
  });

  // A request node cannot parse (a broken request line, a bad header) gets a 400, never a crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    safely(
      () => {
        if (!socket.writable || error.code === 'ECONNRESET') {
          socket.destroy();
          return;
        }
        const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
        rawAnswer(socket, status, { 'content-type': 'text/plain; charset=utf-8' }, `guard: the request cannot be read (${error.code ?? 'malformed'})\n`);
      },
      () => socket.destroy(),
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
