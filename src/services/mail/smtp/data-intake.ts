/**
 * What a DATA stream brought (dot-unstuffed by smtp-server): the message's bytes, kept only up to
 * the SIZE limit — past it the rest is read and dropped, so a 1 GB body costs no more memory than
 * the limit — and only while the listener's buffer budget has room for them (buffer-budget.ts):
 * a message that finds none is dropped the same way and refused for now. A line that ends in a
 * bare LF, or a NUL, refuses it too.
 */
import type { Readable } from 'node:stream';
import type { BufferShare } from './buffer-budget.ts';

/** Intake is the outcome of reading one DATA stream. */
export type Intake =
  | { readonly kind: 'message'; readonly bytes: Buffer }
  | { readonly kind: 'too-large' }
  /** The listener's buffer budget was spent by other messages in flight: refused for now (452 4.3.1). */
  | { readonly kind: 'no-room' }
  | { readonly kind: 'bare-lf' }
  | { readonly kind: 'nul' }
  /** The connection went away before the final dot: nothing is delivered. */
  | { readonly kind: 'cut-off' };

/**
 * readIntake reads `stream` to its end, keeping at most `limit` bytes, each drawn from `share`
 * (which the caller releases once the message is delivered or refused).
 */
export function readIntake(stream: Readable, limit: number, share: BufferShare): Promise<Intake> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let previous = -1;
    let bareLf = false;
    let nul = false;
    let dropped = false;
    const drop = (): void => {
      // Dropped from here on; the little kept so far goes too.
      dropped = true;
      chunks.length = 0;
      share.release();
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!dropped && size > limit) drop();
      if (dropped) return;
      if (!share.take(chunk.length)) {
        drop();
        return;
      }
      chunks.push(chunk);
      if (bareLf || nul) return;
      if (chunk.includes(0)) nul = true;
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) {
        const before = at === 0 ? previous : chunk[at - 1];
        if (before !== 0x0d) {
          bareLf = true;
          break;
        }
      }
      previous = chunk[chunk.length - 1] ?? previous;
    });
    stream.once('error', () => resolve({ kind: 'cut-off' }));
    stream.once('close', () => resolve({ kind: 'cut-off' }));
    stream.once('end', () => {
      if (size > limit) resolve({ kind: 'too-large' });
      else if (dropped) resolve({ kind: 'no-room' });
      else if (nul) resolve({ kind: 'nul' });
      else if (bareLf) resolve({ kind: 'bare-lf' });
      else resolve({ kind: 'message', bytes: Buffer.concat(chunks, size) });
    });
  });
}
