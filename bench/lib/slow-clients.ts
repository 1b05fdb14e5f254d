import { connect, type Socket } from 'node:net';

/**
 * SlowClients hold `count` connections to a server the way a slow or hostile client does: all but
 * `heads` send a POST head with a large Content-Length and then one byte of body a second (a slow
 * body, which a proxy must pass on as it comes), `heads` send a request head a byte a second and
 * never finish it (slowloris). A connection
 * the server closes (a body or head time limit) is opened again while they run, so `count` stay
 * connected.
 */
export class SlowClients {
  private readonly sockets = new Set<Socket>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly port: number,
    readonly count: number,
    readonly heads = 0,
  ) {}

  /** start connects them all and resolves once every connection is open and the server has had a second to take their heads in. */
  async start(): Promise<void> {
    this.running = true;
    await Promise.all(Array.from({ length: this.count }, (_, i) => this.open(i >= this.heads)));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    this.timer = setInterval(() => {
      for (const socket of this.sockets) socket.write('x');
    }, 1000);
  }

  /** open connects one client, and opens another when the server closes it. */
  private open(slowBody: boolean): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: this.port });
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        this.sockets.add(socket);
        socket.write(
          slowBody
            ? 'POST /upload HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n'
            : 'GET /slow HTTP/1.1\r\nHost: bench\r\nX-Slow: ',
        );
        resolve();
      });
      socket.resume();
      socket.once('close', () => {
        this.sockets.delete(socket);
        if (this.running) void this.open(slowBody);
        else resolve();
      });
    });
  }

  /** connected is how many are connected now. */
  get connected(): number {
    return this.sockets.size;
  }

  /** stop closes them all. */
  stop(): void {
    this.running = false;
    clearInterval(this.timer);
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
