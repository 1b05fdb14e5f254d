import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * ConnectionDrain lets a closing server end every connection that is not carrying a request,
 * at once and from then on. Node's own idle closing passes over a connection on which no request
 * has arrived yet (a client's spare keep-alive socket counts as waiting for headers), so without
 * this `close()` waits out the headers timeout (about a minute) for a socket that will never send
 * anything; and a connection whose answer ends after closing began would idle out its keep-alive
 * timeout the same way.
 */
export class ConnectionDrain {
  /** Requests in flight per socket. */
  readonly #busy = new Map<Socket, number>();
  readonly #sockets = new Set<Socket>();
  #draining = false;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#busy.delete(socket);
      });
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      this.#busy.set(socket, (this.#busy.get(socket) ?? 0) + 1);
      // Done when the answer is written and the body read to its end (an early answer, such as a
      // 413, leaves the client still sending: cutting it off then would break its write).
      let open = 2;
      const done = (): void => {
        if (--open > 0) return;
        const left = (this.#busy.get(socket) ?? 1) - 1;
        if (left > 0) this.#busy.set(socket, left);
        else this.#busy.delete(socket);
        if (this.#draining && left <= 0) socket.destroySoon();
      };
      response.once('close', done);
      request.once('close', done);
    });
  }

  /** drain ends the connections carrying no request now, and each other one when its last exchange is over. */
  drain(): void {
    this.#draining = true;
    for (const socket of this.#sockets) if (!this.#busy.has(socket)) socket.destroySoon();
  }
}
