import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CARRIES_TLS } from './tls/same-port.ts';

/** The request a connection carried last (set once per request: no listeners on the hot path). */
const LAST_REQUEST = Symbol('last request');
/** Whether a drained connection already waits for its exchange to end. */
const WAITING = Symbol('waiting for its exchange');

type TrackedSocket = Socket & {
  [CARRIES_TLS]?: boolean;
  [LAST_REQUEST]?: IncomingMessage;
  [WAITING]?: boolean;
  /** Node's response in progress on this connection (what its own idle check reads). */
  _httpMessage?: ServerResponse | null;
};

/**
 * ConnectionDrain lets a closing server end every connection that is not carrying a request,
 * at once and from then on. Node's own idle closing passes over a connection on which no request
 * has arrived yet (a client's spare keep-alive socket counts as waiting for headers), so without
 * this `close()` waits out the headers timeout (about a minute) for a socket that will never send
 * anything; and a connection whose answer ends after closing began would idle out its keep-alive
 * timeout the same way. Until `drain`, it only notes connections and each connection's latest
 * request, which costs requests nothing measurable.
 */
export class ConnectionDrain {
  readonly #sockets = new Set<TrackedSocket>();
  #draining = false;

  constructor(server: Server) {
    server.on('connection', (socket: TrackedSocket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    server.on('request', (request: IncomingMessage) => {
      const socket = request.socket as TrackedSocket;
      socket[LAST_REQUEST] = request;
      if (this.#draining) this.#endWhenIdle(socket);
    });
  }

  /** drain ends the connections carrying no request now, and each other one when its exchange is over. */
  drain(): void {
    this.#draining = true;
    for (const socket of this.#sockets) this.#endWhenIdle(socket);
  }

  /**
   * #endWhenIdle ends a connection once its answer is written and its request's body has arrived
   * (an early answer, such as a 413, leaves the client still sending: cutting it off then would
   * break its write).
   */
  #endWhenIdle(socket: TrackedSocket): void {
    // An HTTPS connection is ended through its TLSSocket, which this drain tracks as well.
    if (socket[WAITING] === true || socket[CARRIES_TLS] === true) return;
    const response = socket._httpMessage;
    const request = socket[LAST_REQUEST];
    const answering = response !== undefined && response !== null && !response.writableFinished;
    const receiving = request !== undefined && !request.complete;
    if (!answering && !receiving) {
      socket.destroySoon();
      return;
    }
    socket[WAITING] = true;
    const again = (): void => {
      socket[WAITING] = false;
      this.#endWhenIdle(socket);
    };
    if (answering) response.once('close', again);
    else request!.once('end', again).once('close', again);
  }
}
