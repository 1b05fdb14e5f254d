/**
 * Coalesced writes for many watch streams. A socket write is a system call plus Node's stream
 * and chunked-encoding bookkeeping, and with many watchers those costs, not the encoding, bound
 * throughput; so the lines queued for every stream go out together, one write per stream, from
 * one scheduled flush for all streams (no timer per watcher). Streams that were queued the same
 * lines in the same order (watchers of one resource without selectors) share one Buffer, framed
 * once as an HTTP chunk and written straight to each socket.
 *
 * Pacing: a flush does not start sooner after the previous one than 1.5 times what a flush
 * typically takes, so writing to sockets takes at most about 40% of the process's time and the
 * rest stays with the requests that make the changes (and, on a shared machine, with the clients
 * reading them). When the server is idle a flush is quick and an event goes out in the next turn;
 * under load the batches grow with the cost of a flush, which is mostly one system call per
 * stream however much the batch holds. "Typically" is a moving average of the flushes' durations
 * (each new one weighs a fifth), not the last one alone: a flush stretched by a collection or by
 * losing the CPU made the next wait as long again, and those waits were most of the slowest
 * deliveries. Measured with bench/cluster-watch-fanout.ts (1,000 watchers, 500 writes/s, 2 cores
 * shared with the client), p99 delivery latency, three runs each: twice the last flush 54–61 ms;
 * twice the average 45–49 ms; 1.5 times the average 45–46 ms, with a tenth more CPU in the server.
 */
import type { ServerResponse } from 'node:http';

const CRLF = Buffer.from('\r\n');
/** PACING is how many times a typical flush's duration passes before the next may start. */
const PACING = 1.5;
/** TYPICAL_WEIGHT is how much each flush's duration moves the typical one. */
const TYPICAL_WEIGHT = 0.2;

/** WatchOutput is one watch response's queue of encoded lines. */
export class WatchOutput {
  #lines: Buffer[] = [];
  #queued = false;

  constructor(
    readonly raw: ServerResponse,
    private readonly writes: WatchWrites,
  ) {}

  /** push queues one encoded line (ending in a newline) for the next flush. */
  push(line: Buffer): void {
    this.#lines.push(line);
    if (this.#queued) return;
    this.#queued = true;
    this.writes.queue(this);
  }

  /** backlog is how many bytes the connection holds that the client has not taken yet. */
  backlog(): number {
    return this.raw.socket?.writableLength ?? this.raw.writableLength;
  }

  /**
   * ready writes what is queued now and resolves once the backlog is at most `bytes`, or the
   * connection has closed.
   */
  async ready(bytes: number): Promise<void> {
    this.flush();
    const socket = this.raw.socket;
    if (socket === null || socket.destroyed || socket.writableLength <= bytes) return;
    // 'drain' comes once the socket's buffer is empty; 'close' if the client leaves meanwhile.
    await new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  /** flush writes what is queued now (before the stream ends). */
  flush(): void {
    const lines = this.take();
    if (lines !== undefined) this.raw.write(lines.length === 1 ? lines[0]! : Buffer.concat(lines));
  }

  /** take hands over the queued lines, or undefined when there are none or the client left. */
  take(): Buffer[] | undefined {
    this.#queued = false;
    const lines = this.#lines;
    if (lines.length === 0) return undefined;
    this.#lines = [];
    return this.raw.destroyed ? undefined : lines;
  }

  /**
   * writeChunk writes one complete HTTP chunk (size line, data, CRLF) whose data starts at
   * `dataStart`. Once the response has its socket and its chunked headers are out, everything
   * the response wrote before is already in the socket's queue, so the chunk goes straight
   * there; otherwise (not expected for a watch) the response frames the data itself.
   */
  writeChunk(chunk: Buffer, dataStart: number): void {
    const raw = this.raw;
    const socket = raw.socket;
    if (socket !== null && raw.headersSent && raw.chunkedEncoding && !raw.writableEnded) socket.write(chunk);
    else raw.write(chunk.subarray(dataStart, chunk.length - CRLF.length));
  }
}

/** SharedLines is a source of lines shared by many outputs (a watch channel, watch-channels.ts), flushed with them. */
export interface SharedLines {
  /** flushShared writes its pending lines to its outputs. */
  flushShared(): void;
}

/** frameChunk frames lines as one HTTP chunk (size line, data, CRLF); the data starts at `dataStart`. */
export function frameChunk(lines: readonly Buffer[]): { readonly chunk: Buffer; readonly dataStart: number } {
  let size = 0;
  for (const line of lines) size += line.length;
  const head = Buffer.from(`${size.toString(16)}\r\n`, 'latin1');
  return { chunk: Buffer.concat([head, ...lines, CRLF], head.length + size + CRLF.length), dataStart: head.length };
}

/** WatchWrites flushes every queued WatchOutput (and shared source of lines) together. */
export class WatchWrites {
  #dirty: WatchOutput[] = [];
  #shared: SharedLines[] = [];
  #scheduled = false;
  /** When (performance.now()) the next flush may start. */
  #nextAllowed = 0;
  /** The moving average of the flushes' durations, in milliseconds. */
  #typicalMs = 0;

  /** queue schedules `output` for the next flush (each output queues itself once per flush). */
  queue(output: WatchOutput): void {
    this.#dirty.push(output);
    this.#schedule();
  }

  /** queueShared schedules `lines` for the next flush (each queues itself once per flush). */
  queueShared(lines: SharedLines): void {
    this.#shared.push(lines);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const wait = this.#nextAllowed - performance.now();
    if (wait >= 1) setTimeout(this.#flushAll, wait);
    else setImmediate(this.#flushAll);
  }

  readonly #flushAll = (): void => {
    const began = performance.now();
    this.#scheduled = false;
    // Shared lines first: an output with lines of its own queued before them writes both, in order.
    const shared = this.#shared;
    this.#shared = [];
    for (const lines of shared) lines.flushShared();
    const dirty = this.#dirty;
    this.#dirty = [];
    let lastLines: readonly Buffer[] = [];
    let chunk: Buffer = CRLF;
    let dataStart = 0;
    for (const output of dirty) {
      const lines = output.take();
      if (lines === undefined) continue;
      if (!sameLines(lines, lastLines)) {
        ({ chunk, dataStart } = frameChunk(lines));
        lastLines = lines;
      }
      output.writeChunk(chunk, dataStart);
    }
    const finished = performance.now();
    this.#typicalMs += (finished - began - this.#typicalMs) * TYPICAL_WEIGHT;
    this.#nextAllowed = finished + PACING * this.#typicalMs;
  };
}

function sameLines(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
