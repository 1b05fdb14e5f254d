/**
 * The answers the guard writes itself (not the policy's page, not the upstream's): one plain-text
 * line, on an HTTP response or, for a connection that left HTTP (an upgrade, CONNECT), written
 * whole on the socket, which is then closed.
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** REASONS are the reason phrases of the statuses the guard writes on a raw socket. */
export const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  302: 'Found',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** plainAnswer is a short text answer of the guard's own on an HTTP response. */
export function plainAnswer(response: ServerResponse, status: number, line: string): void {
  const body = `${line}\n`;
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** rawAnswer writes a whole answer on a socket that left HTTP (an upgrade, CONNECT), then closes it. */
export function rawAnswer(socket: Duplex, status: number, headers: Readonly<Record<string, string>>, body: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Denied'}`,
    ...Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' }).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** errorText is an error's code, or its message, for a guard line. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}
