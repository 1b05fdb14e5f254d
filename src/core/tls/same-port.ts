/**
 * HTTPS and plain HTTP on one port. Every TLS connection opens with a handshake record, whose
 * first byte is 0x16; no HTTP request line starts with it. So the server reads a connection's
 * first bytes, puts them back, and hands the socket either to Node's own HTTP connection handling
 * (as if nothing had happened) or to a TLS server that never listens, whose decrypted connections
 * then go to the same HTTP handling: one request handler, one set of connections to drain.
 *
 * The cost to plain HTTP is one `data` callback per connection, not per request (measured with
 * the GET bench: docs/deploy.md). The HTTP parser still reads the socket natively after the first
 * chunk (Node's parser consumes the stream handle; the chunk put back is emitted to it first).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket, TlsOptions } from 'node:tls';

/** TLS_HANDSHAKE is the first byte of every TLS connection (the ContentType of a handshake record). */
export const TLS_HANDSHAKE = 0x16;

/** CARRIES_TLS marks a raw socket whose TLS connection is served through a TLSSocket over it (connection-drain.ts ends that one, not the carrier). */
export const CARRIES_TLS = Symbol('carries a TLS connection');

/** FIRST_BYTES_TIMEOUT_MS bounds a connection that sends nothing, or an unfinished handshake (Node's own TLS default is 120 s). */
const FIRST_BYTES_TIMEOUT_MS = 60_000;

type ConnectionListener = (this: Server, socket: Socket) => void;

/**
 * serveTlsOnSamePort makes `server` answer TLS connections too, with the options `tlsOptions`
 * gives (asked once, at the first TLS connection: making the certificates or the secure context
 * is left until a client needs it). Client certificates are requested but not required, and a chain that does
 * not verify is not refused here: the TLSSocket's `authorized` says whether it verified against
 * the options' `ca`, and the cluster family answers 401 for it (as the apiserver does), so token
 * clients on TLS still work. Call it before any other `connection` listener is added.
 */
export function serveTlsOnSamePort(server: Server, tlsOptions: () => Promise<TlsOptions>): void {
  const [http] = server.listeners('connection') as ConnectionListener[];
  if (http === undefined) throw new Error("serveTlsOnSamePort: the server has no connection listener of Node's to hand plain connections to");
  server.removeListener('connection', http);
  // node:tls and the secure context load with the first TLS connection (start-up time).
  let tls: Promise<TlsServer> | undefined;
  const secured = new WeakSet<Socket>();
  const tlsServer = (): Promise<TlsServer> =>
    (tls ??= Promise.all([import('node:tls'), tlsOptions()]).then(([{ createServer }, options]) => {
      const created = createServer({ ...options, requestCert: true, rejectUnauthorized: false, handshakeTimeout: FIRST_BYTES_TIMEOUT_MS });
      created.on('secureConnection', (secure: TLSSocket & { _parent?: Socket & { [CARRIES_TLS]?: boolean } }) => {
        // From now on closing ends the TLSSocket when its exchange is over; its carrier goes with it.
        if (secure._parent !== undefined) secure._parent[CARRIES_TLS] = true;
        secured.add(secure);
        server.emit('connection', secure);
      });
      // A failed handshake (the client distrusts the certificate, say): Node destroys the socket.
      created.on('tlsClientError', () => {});
      return created;
    }));
  server.on('connection', (socket: Socket) => {
    if (secured.has(socket)) {
      http.call(server, socket);
      return;
    }
    const early = (): void => {
      socket.destroy();
    };
    socket.on('error', early);
    socket.setTimeout(FIRST_BYTES_TIMEOUT_MS, early);
    socket.once('data', (chunk: Buffer) => {
      socket.off('error', early);
      socket.off('timeout', early);
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === TLS_HANDSHAKE) {
        // The TLSSocket reads what was put back before it takes the socket's handle over.
        tlsServer().then(
          (created) => created.emit('connection', socket),
          () => {
            // Tried again by the next TLS connection.
            tls = undefined;
            socket.destroy();
          },
        );
        return;
      }
      http.call(server, socket);
      socket.resume();
    });
  });
}
