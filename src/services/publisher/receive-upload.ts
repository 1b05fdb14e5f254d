/**
 * receive-upload — THE SEAM TO BE REPLACED BY `core/uploads/` AT MERGE.
 *
 * The Google upload protocols (media, multipart/related, resumable with sessions that survive a
 * restart) belong to core (issue 9, built alongside the mail API). Until that lands, this one
 * module receives the two protocols the googleapis Node client uses — `uploadType=media` and
 * `uploadType=multipart` — by streaming the media to a file while hashing it, and hands the
 * publisher a ReceivedUpload. Nothing else in the publisher knows how bytes arrived: swapping
 * this file for core/uploads changes no other file. Resumable is not accepted here.
 */

import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import Dicer from '@fastify/busboy/deps/dicer/lib/Dicer.js';
import { badRequest, uploadTooLarge } from './errors.ts';

/** ReceivedUpload is an upload fully on disk: what the publisher's methods work from. */
export interface ReceivedUpload {
  /** The file holding exactly the uploaded bytes. */
  readonly path: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes (what `sha256sum` prints). */
  readonly sha256: string;
  /** The media's content type as the client declared it. */
  readonly contentType: string;
  /** The parsed JSON metadata part (multipart), or undefined when none was sent. */
  readonly metadata: unknown;
}

/** ReceiveOptions say where the bytes go and how many are allowed. */
export interface ReceiveOptions {
  /** The file to create; it is removed again when receiving fails. */
  readonly path: string;
  readonly maxBytes: number;
}

/** MAX_METADATA_BYTES bounds the JSON part of a multipart upload (the resource, never the media). */
const MAX_METADATA_BYTES = 64 * 1024;

/** uploadTypeOf reads `uploadType` from a request's query; undefined when absent. */
export function uploadTypeOf(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.['uploadType'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * receiveUpload streams the request's media to `options.path` while hashing it. The request body
 * must still be unread (the upload routes' content-type parser passes the stream through).
 * On any failure the partial file is removed before the error is rethrown.
 */
export async function receiveUpload(request: FastifyRequest, body: Readable, options: ReceiveOptions): Promise<ReceivedUpload> {
  const uploadType = uploadTypeOf(request) ?? 'media';
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes + (uploadType === 'multipart' ? MAX_METADATA_BYTES + 4096 : 0)) {
    body.resume();
    throw uploadTooLarge(options.maxBytes);
  }
  try {
    if (uploadType === 'media') return await receiveMedia(body, request.headers['content-type'] ?? 'application/octet-stream', undefined, options);
    if (uploadType === 'multipart') return await receiveMultipart(body, request.headers['content-type'] ?? '', options);
  } catch (error) {
    await rm(options.path, { force: true });
    throw error;
  }
  body.resume();
  if (uploadType === 'resumable') throw badRequest('Resumable uploads are not supported by this server yet; use uploadType=media or uploadType=multipart.');
  throw badRequest(`Invalid value for upload protocol: '${uploadType}'. Supported: media, multipart.`);
}

/**
 * receiveMedia writes one stream to the file through a hashing, counting, size-capping pass. The
 * source is never destroyed on failure, only drained, so the client can still read the 4xx.
 */
async function receiveMedia(media: Readable, contentType: string, metadata: unknown, options: ReceiveOptions): Promise<ReceivedUpload> {
  const meter = new HashingMeter(options.maxBytes);
  const written = pipeline(meter, createWriteStream(options.path, { flags: 'wx' }));
  const onError = (error: Error): void => void meter.destroy(error);
  const onClose = (): void => {
    if (!media.readableEnded) meter.destroy(badRequest('The upload was interrupted before all of its bytes arrived.'));
  };
  media.once('error', onError);
  media.once('close', onClose);
  media.pipe(meter);
  try {
    await written;
  } catch (error) {
    media.unpipe(meter);
    media.resume();
    throw error;
  } finally {
    media.off('error', onError);
    media.off('close', onClose);
  }
  return { path: options.path, size: meter.bytes, sha256: meter.hash.digest('hex'), contentType, metadata };
}

/**
 * receiveMultipart parses `multipart/related`: the first part is the JSON resource (may be `{}`
 * or empty), the second the media. The media part is streamed to the file, never buffered.
 */
async function receiveMultipart(body: Readable, contentType: string, options: ReceiveOptions): Promise<ReceivedUpload> {
  const boundary = /^multipart\/related\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  if (boundary === null) {
    body.resume();
    throw badRequest(`Invalid multipart request: content type '${contentType}' is not multipart/related with a boundary.`);
  }
  const dicer = new Dicer({ boundary: boundary[1] ?? boundary[2]!, maxHeaderPairs: 32 });
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let index = 0;
    let metadataText = '';
    let metadataDone: Promise<void> = Promise.resolve();
    let media: Promise<ReceivedUpload> | undefined;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      body.unpipe(dicer);
      body.resume();
      // The media write may still be open: settle it before the caller removes the file.
      void (media ?? Promise.resolve()).catch(() => undefined).finally(() => reject(error));
    };
    dicer.on('part', (part) => {
      const at = index++;
      if (at === 0) {
        part.on('data', (chunk: Buffer) => {
          metadataText += chunk.toString('utf8');
          if (metadataText.length > MAX_METADATA_BYTES) fail(badRequest('Invalid multipart request: the metadata part is too large.'));
        });
        // Part streams flow asynchronously: the media part's headers can arrive before this ends.
        metadataDone = new Promise((resolve) => part.once('end', resolve));
        return;
      }
      if (at > 1) {
        part.resume();
        fail(badRequest('Invalid multipart request: expected exactly two parts (metadata and media).'));
        return;
      }
      // The media part's headers come first (the part stream buffers its data until piped).
      part.once('header', async (headers: Record<string, string[] | undefined>) => {
        await metadataDone;
        if (failed) return;
        let metadata: unknown;
        try {
          metadata = metadataText.trim() === '' ? undefined : (JSON.parse(metadataText) as unknown);
        } catch {
          part.resume();
          fail(badRequest('Invalid multipart request: the metadata part is not valid JSON.'));
          return;
        }
        media = receiveMedia(part, headers['content-type']?.[0] ?? 'application/octet-stream', metadata, options);
        media.catch(fail);
      });
    });
    dicer.on('error', (error: Error) => fail(badRequest(`Invalid multipart request: ${error.message}.`)));
    dicer.on('finish', () => {
      if (failed) return;
      if (media === undefined) {
        fail(badRequest('Invalid multipart request: the media part is missing.'));
        return;
      }
      media.then(resolve, fail);
    });
    body.on('error', fail);
    body.pipe(dicer);
  });
}

/** HashingMeter passes bytes through while hashing and counting them, failing past the cap. */
class HashingMeter extends Transform {
  readonly hash: Hash = createHash('sha256');
  bytes = 0;
  constructor(readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(uploadTooLarge(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }
}
