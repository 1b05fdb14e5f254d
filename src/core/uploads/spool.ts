import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { writeNewFile } from '../../lib/new-file.ts';
import { mediaTooLarge } from './errors.ts';

/** SpooledFile is a body written to disk: where it is, how many bytes, and their SHA-256. */
export interface SpooledFile {
  readonly path: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes (what `sha256sum` prints). */
  readonly sha256: string;
}

/** MeteredHash is a pass-through that counts and hashes bytes and fails with a 413 past a size. */
export interface MeteredHash {
  readonly stream: Transform;
  /** result is the size and hash of everything that went through (call after the stream finished). */
  result(): { size: number; sha256: string };
}

/** meteredHash makes a MeteredHash that admits at most `maxSize` bytes. */
export function meteredHash(maxSize: number): MeteredHash {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxSize) {
        callback(mediaTooLarge(maxSize));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * spoolToFile streams `source` into a new file at `path`, hashing as it goes and stopping with
 * a 413 the moment the bytes pass `maxSize`. Memory stays at one chunk whatever the size; on any
 * failure the partial file is removed, so nothing half-written is left behind.
 */
export async function spoolToFile(source: Readable, path: string, maxSize: number): Promise<SpooledFile> {
  const meter = meteredHash(maxSize);
  await writeNewFile(feed(source, meter.stream), path);
  return { path, ...meter.result() };
}

/** hashFile reads the file at `path` once for its size and SHA-256. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * feed pipes `source` into `sink` without tying their lives together: when the sink fails (too
 * many bytes) the request is left alone so the 413 can still be answered on its socket, and when
 * the request dies (the client went away) the sink fails with it instead of waiting forever.
 * The sink is any writable stream that can be destroyed (a Transform, mailsplit's Splitter).
 */
export function feed<T extends NodeJS.WritableStream & { destroy(error?: Error): unknown }>(source: Readable, sink: T): T {
  let ended = false;
  const fail = (error: Error): void => {
    if (!ended) sink.destroy(error);
  };
  source.once('end', () => (ended = true));
  source.once('error', fail);
  source.once('close', () => fail(new Error('the client closed the request before its body ended')));
  sink.once('error', () => source.unpipe(sink));
  source.pipe(sink);
  return sink;
}
