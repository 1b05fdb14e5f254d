import type { IncomingMessage } from 'node:http';

/**
 * An error answered before the request body was read (Fastify refuses a Content-Length over the
 * body limit without reading a byte; a family may refuse an upload at its first bytes) is followed
 * by the connection closing, and closing a socket with unread bytes in its receive buffer makes
 * the kernel send a reset, which can throw away the answer before the client has read it: the
 * client sees "connection reset" instead of its 413. So before such an answer goes out, the rest
 * of the body is read and dropped — a bounded "lingering" read, as web servers do before closing.
 */

/** DrainLimits bound how much of an unread body is read before the answer goes out anyway. */
export interface DrainLimits {
  /** Most bytes read. */
  readonly bytes: number;
  /** Longest wait for the next bytes. */
  readonly idleMs: number;
  /** Longest wait altogether. */
  readonly totalMs: number;
}

/** DRAIN_LIMITS: enough for a body a few times the default limit on loopback, never a long wait. */
export const DRAIN_LIMITS: DrainLimits = { bytes: 16 * 1024 * 1024, idleMs: 100, totalMs: 2000 };

/**
 * drainUnreadBody reads and drops what is left of `request`'s body, resolving when it ended, or
 * when a limit is reached (a client that sends slowly or too much gets its answer regardless).
 */
export function drainUnreadBody(request: IncomingMessage, limits: DrainLimits = DRAIN_LIMITS): Promise<void> {
  if (request.complete || request.readableEnded || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    let idle: NodeJS.Timeout;
    const finish = (): void => {
      clearTimeout(idle);
      clearTimeout(total);
      request.off('data', onData);
      request.off('end', finish);
      request.off('close', finish);
      request.off('error', finish);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read >= limits.bytes) {
        finish();
        return;
      }
      clearTimeout(idle);
      idle = setTimeout(finish, limits.idleMs);
    };
    idle = setTimeout(finish, limits.idleMs);
    const total = setTimeout(finish, limits.totalMs);
    request.on('data', onData);
    request.once('end', finish);
    request.once('close', finish);
    request.once('error', finish);
    request.resume();
  });
}
