/**
 * What a DATA stream brought (dot-unstuffed by smtp-server): the message's bytes, kept only up to
 * the SIZE limit — past it the rest is read and dropped, so a 1 GB body costs no more memory than
 * the limit — and whether a line ended in a bare LF or a NUL came, either of which refuses it.
 */
import type { Readable } from 'node:stream';

/** Intake is the outcome of reading one DATA stream. */
export type Intake =
  | { readonly kind: 'message'; readonly bytes: Buffer }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'bare-lf' }
  | { readonly kind: 'nul' }
  /** The connection went away before the final dot: nothing is delivered. */
  | { readonly kind: 'cut-off' };

/** readIntake reads `stream` to its end, keeping at most `limit` bytes. */
export function readIntake(stream: Readable, limit: number): Promise<Intake> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let previous = -1;
    let bareLf = false;
    let nul = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Dropped from here on; the little kept so far goes too.
        chunks.length = 0;
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
      else if (nul) resolve({ kind: 'nul' });
      else if (bareLf) resolve({ kind: 'bare-lf' });
      else resolve({ kind: 'message', bytes: Buffer.concat(chunks, size) });
    });
  });
}
