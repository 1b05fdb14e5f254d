import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_REASON_PHRASES, TransportProblemError, transportProblemOf, type TransportProblem } from './errors.ts';
import { renderNeutralError } from './neutral-error.ts';
import { isUnderPrefix } from './path-aliases.ts';
import type { ErrorResponse, ErrorSite, ServiceDefinition } from './service.ts';

/** MALFORMED_REQUEST is what Google's front end says of a request it cannot read at all. */
export const MALFORMED_REQUEST = 'Your client has issued a malformed or illegal request.';

/** REQUEST_LINE_LIMIT is how long a request line may be before the URL counts as too long (414) rather than the headers (431). */
const REQUEST_LINE_LIMIT = 8 * 1024;

/**
 * FamilyErrors answers everything that happens before or outside a family's handlers (bad
 * URLs, unreadable requests, oversized headers, unknown paths) in the dialect of the family
 * that owns the path: the longest matching `pathPrefixes` entry wins, a `fallback` family (none
 * of fogbank's own is one) answers the rest, and without one core's neutral answer does
 * (neutral-error.ts).
 */
export class FamilyErrors {
  private readonly prefixes: readonly { readonly prefix: string; readonly service: ServiceDefinition }[];
  private readonly fallback: ServiceDefinition | undefined;

  constructor(
    services: readonly ServiceDefinition[],
    private readonly bodyLimit: number,
  ) {
    this.prefixes = services
      .flatMap((service) =>
        [...service.pathPrefixes, ...(service.pathAliases ?? []).map((alias) => alias.alias)].map((prefix) => ({
          prefix: prefix.replace(/\/+$/, ''),
          service,
        })),
      )
      .sort((a, b) => b.prefix.length - a.prefix.length);
    this.fallback = services.find((service) => service.fallback === true);
  }

  /** familyFor picks the family that owns `path` (a query string may follow it), or undefined when none does and there is no fallback. */
  familyFor(path: string): ServiceDefinition | undefined {
    for (const { prefix, service } of this.prefixes) {
      if (isUnderPrefix(path, prefix)) return service;
    }
    return this.fallback;
  }

  /** render phrases `error` for a request to `method path` in the owning family's dialect. */
  render(error: unknown, method: string, path: string, contentType: string | undefined): ErrorResponse {
    const site: ErrorSite = { method, path, contentType, bodyLimit: this.bodyLimit };
    const family = this.familyFor(path);
    if (family !== undefined) {
      try {
        return family.renderError(error, site);
      } catch {
        // Answers written from socket events must never throw: that would take the process down.
      }
    }
    // No family owns the path (or its serializer failed): core's one neutral answer.
    return renderNeutralError(family === undefined ? error : undefined);
  }

  /**
   * answerClientError writes the family's answer on a socket whose request Node could not parse
   * (the `clientError` event) and closes it: nothing after an unreadable request can be trusted.
   */
  answerClientError(error: Error & { code?: string | undefined; rawPacket?: unknown }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const line = Buffer.isBuffer(error.rawPacket) ? requestLineOf(error.rawPacket) : undefined;
    this.answerOnSocket(clientProblemOf(error.code, line), line?.method ?? 'GET', line?.path ?? '/', socket);
  }

  /** answerOnSocket writes the family's answer to `problem` straight onto a socket Node will not answer through a response, and closes it. */
  answerOnSocket(problem: TransportProblem, method: string, path: string, socket: Socket): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const response = this.render(new TransportProblemError(problem), method, path, undefined);
    const body = JSON.stringify(response.body);
    const headers = { ...response.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
    const head = [
      `HTTP/1.1 ${response.status} ${HTTP_REASON_PHRASES[response.status] ?? 'Error'}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  }

  /**
   * answerResponse sends the family's answer to `error` through a response no Fastify app holds (an
   * unmet `Expect`, a family that could not be built) and returns its status. The path is the one
   * the client sent, before any alias was rewritten.
   */
  answerResponse(error: unknown, request: IncomingMessage & { readonly originalUrl?: string }, response: ServerResponse): number {
    const rendered = this.render(error, request.method ?? 'GET', pathOf(request.originalUrl ?? request.url ?? '/'), request.headers['content-type']);
    const body = JSON.stringify(rendered.body);
    response.writeHead(rendered.status, { ...rendered.headers, 'content-length': String(Buffer.byteLength(body)) });
    response.end(body);
    return rendered.status;
  }
}

/** frameworkProblemOf classifies an error Fastify's router raised before routing (frameworkErrors). */
export function frameworkProblemOf(error: unknown): TransportProblem {
  const code = (error as { code?: unknown } | null)?.code;
  // Fastify's own texts echo the URL back; Google's front end does not.
  if (code === 'FST_ERR_BAD_URL') return { httpStatus: 400, kind: 'bad-url', detail: MALFORMED_REQUEST };
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return { httpStatus: 414, kind: 'uri-too-long', detail: 'The requested URL is too large to process.' };
  return transportProblemOf(error) ?? { httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST };
}

function clientProblemOf(code: string | undefined, line: RequestLine | undefined): TransportProblem {
  if (code === 'HPE_HEADER_OVERFLOW') {
    if (line !== undefined && line.length > REQUEST_LINE_LIMIT)
      return { httpStatus: 414, kind: 'uri-too-long', detail: 'The requested URL is too large to process.' };
    return { httpStatus: 431, kind: 'headers-too-large', detail: 'Your client issued a request that was too large.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return { httpStatus: 408, kind: 'bad-request', detail: 'Your client has taken too long to issue its request.' };
  return { httpStatus: 400, kind: 'bad-request', detail: MALFORMED_REQUEST };
}

interface RequestLine {
  readonly method: string;
  readonly path: string;
  /** Characters up to the end of the line (or of what arrived). */
  readonly length: number;
}

/** requestLineOf reads `METHOD target` from the start of the bytes Node failed on, when they start a request. */
function requestLineOf(raw: Buffer): RequestLine | undefined {
  const text = raw.toString('latin1', 0, Math.min(raw.length, REQUEST_LINE_LIMIT * 2));
  const match = /^([A-Za-z]{1,20}) (\S+)/.exec(text);
  if (match === null) return undefined;
  const end = text.indexOf('\n');
  return { method: match[1]!.toUpperCase(), path: pathOf(match[2]!), length: end === -1 ? raw.length : end };
}

/** pathOf drops the query string and, for an absolute-form target, the scheme and authority. */
export function pathOf(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const query = path.search(/[?#]/);
  return query === -1 ? path : path.slice(0, query);
}
