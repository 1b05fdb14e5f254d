/**
 * The console's own origin, for the Origin check of its changes: the scheme of the connection the
 * request came on (fogbank serves plain HTTP and HTTPS on one port, core/tls/same-port.ts) and
 * the host the browser addressed (its Host header: any name the server answers to, loopback in
 * any spelling, the `--host` name, the names a certificate carries). A page of another origin
 * sends its own Origin, which is not this; a page of this origin sends exactly this.
 */
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { ConsoleError } from './errors.ts';

/** overTls says whether the request came on a TLS connection (its socket is a TLSSocket, whatever a header claims). */
export function overTls(request: FastifyRequest): boolean {
  return (request.raw.socket as Partial<TLSSocket>).encrypted === true;
}

/** ownOrigin is the origin a page of the console served on this request's connection has (`https://localhost:8780`), or undefined without a usable Host. */
export function ownOrigin(request: FastifyRequest): string | undefined {
  const host = request.headers.host;
  if (host === undefined || host === '' || /[/?#@\\\s]/.test(host)) return undefined;
  try {
    // The URL parser writes the origin as a browser does: the host lower-case, a default port left out.
    return new URL(`${overTls(request) ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** checkOrigin refuses a browser request sent from another origin (a page elsewhere posting to this server). */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  const own = ownOrigin(request);
  if (typeof origin === 'string' && own !== undefined && origin.toLowerCase() === own) return;
  throw new ConsoleError(
    403,
    `A console change must come from the console's own page (Origin ${own ?? `${overTls(request) ? 'https' : 'http'}://HOST`}), not ${origin === undefined ? 'a request without an Origin' : JSON.stringify(origin)}.`,
  );
}
