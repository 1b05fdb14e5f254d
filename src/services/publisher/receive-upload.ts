/**
 * receive-upload — THE SEAM TO BE REPLACED BY `core/uploads/` AT MERGE.
 *
 * The Google upload protocols (media, multipart/related, resumable with sessions that survive a
 * restart) belong to core (`src/core/uploads/`, issue 9, on its own branch). This module is a
 * stand-in with the SAME public API as `core/uploads/index.ts` on that branch — `UploadEngine`
 * (`streamBodies`, `route`, `open`), `UploadMethod` / `CompletedUpload` / `UploadedMedia` /
 * `UploadAnswer` / `MediaLimits`, `UploadError`, `wrongUrlForUpload`, `openFileArea` — written
 * here, not copied, and limited to the two protocols the googleapis Node client uses:
 * `uploadType=media` and `uploadType=multipart`. Resumable requests get a 400 until the merge.
 * At merge: delete this file and point the publisher's imports at `../../core/uploads/index.ts`;
 * nothing else in the publisher knows how bytes arrived.
 */

import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import Dicer from '@fastify/busboy/deps/dicer/lib/Dicer.js';
import type { Clock } from '../../core/clock.ts';
import { ApiError } from '../../core/errors.ts';
import { hexId, type IdSource } from '../../core/ids.ts';
import type { Store } from '../../store/store.ts';

/** MediaLimits are a method's `mediaUpload` descriptor: accepted media types and the largest size. */
export interface MediaLimits {
  /** Accepted media types; `type/*` accepts every subtype, `*\/*` everything. */
  readonly accept: readonly string[];
  readonly maxSize: number;
}

/** UploadedMedia is the media of a finished upload, on disk: the method moves what it keeps; the engine removes the rest. */
export interface UploadedMedia {
  readonly path: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes (what `sha256sum` prints). */
  readonly sha256: string;
  readonly mediaType: string;
}

/** CompletedUpload is what a method gets once every byte arrived: the JSON metadata (`{}` when none) and the media. */
export interface CompletedUpload {
  readonly metadata: Record<string, unknown>;
  readonly media: UploadedMedia;
}

/** UploadAnswer is the method's success response. */
export interface UploadAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * UploadMethod is one method that accepts media. `begin` runs before a byte is accepted
 * (authentication, the target's existence) and returns the JSON-serialisable context that
 * `complete` needs (a resumable session keeps it across restarts).
 */
export interface UploadMethod<C> {
  /** A stable name (`androidpublisher.internalappsharingartifacts.uploadbundle`). */
  readonly id: string;
  readonly limits: MediaLimits;
  begin(request: FastifyRequest): Promise<C> | C;
  complete(upload: CompletedUpload, context: C): Promise<UploadAnswer>;
}

/** UploadError is a failure of the upload protocol itself; the owning family's serializer renders it. */
export class UploadError extends ApiError {
  override readonly name = 'UploadError';
  constructor(
    readonly httpStatus: number,
    /** The lowerCamel `errors[].reason`. */
    readonly reason: string,
    /** The canonical status word. */
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

/** wrongUrlForUpload is Google's answer to media sent to a metadata address, or to an upload address without `uploadType`. */
export function wrongUrlForUpload(): UploadError {
  return new UploadError(400, 'wrongUrlForUpload', 'INVALID_ARGUMENT', 'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/');
}

function mediaTooLarge(maxSize: number): UploadError {
  return new UploadError(413, 'uploadTooLarge', 'INVALID_ARGUMENT', `Media larger than the maximum size of ${maxSize} bytes.`);
}

function badMultipart(detail: string): UploadError {
  return new UploadError(400, 'badRequest', 'INVALID_ARGUMENT', detail);
}

/** FileArea is a directory a family keeps files in: under the data directory, or a temporary one removed on close. */
export interface FileArea {
  readonly dir: string;
  readonly persistent: boolean;
  /** path joins names under the area, creating their folder. */
  path(...names: string[]): string;
  close(): void;
}

/** openFileArea opens `<dataDir>/<name>`, or a temporary directory when there is no data directory. */
export function openFileArea(dataDir: string | undefined, name: string): FileArea {
  const persistent = dataDir !== undefined;
  const dir = persistent ? join(dataDir, name) : mkdtempSync(join(tmpdir(), `fogbank-${name}-`));
  return {
    dir,
    persistent,
    path(...names: string[]): string {
      const full = join(dir, ...names);
      mkdirSync(join(full, '..'), { recursive: true, mode: 0o700 });
      return full;
    },
    close(): void {
      if (!persistent) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** UploadEngineOptions are what an engine needs: the family it serves, state, time, ids and its file area. */
export interface UploadEngineOptions {
  readonly family: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly area: FileArea;
}

type UploadProtocol = 'media' | 'multipart' | 'resumable';

/** METADATA_LIMIT bounds the JSON part of a multipart upload (the resource, never the media). */
const METADATA_LIMIT = 64 * 1024;

/** UploadEngine serves a family's media methods over `uploadType=media` and `uploadType=multipart`. */
export class UploadEngine {
  constructor(private readonly options: UploadEngineOptions) {}

  /** open prepares the engine: spools a previous run was still writing can never complete, so they go. */
  async open(): Promise<void> {
    await rm(join(this.options.area.dir, 'spool'), { recursive: true, force: true });
  }

  /** streamBodies makes every route of `scope` receive the raw request stream, outside core's JSON body limit. */
  streamBodies(scope: FastifyInstance): void {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: unknown) => void) => done(null, payload));
  }

  /** route serves `method` at `url` in a scope prepared by streamBodies. */
  route<C>(scope: FastifyInstance, verb: HTTPMethods, url: string, method: UploadMethod<C>, defaultProtocol?: UploadProtocol): void {
    scope.route({
      method: verb,
      url,
      handler: async (request, reply) => {
        const body = bodyOf(request);
        try {
          const query = (request.query ?? {}) as Record<string, unknown>;
          const protocol = readProtocol(query['uploadType'], defaultProtocol);
          const context = await method.begin(request);
          if (protocol === 'resumable') throw new UploadError(400, 'badRequest', 'INVALID_ARGUMENT', 'Resumable uploads are not available on this server yet; use uploadType=media or uploadType=multipart.');
          const limit = method.limits.maxSize + (protocol === 'multipart' ? METADATA_LIMIT : 0);
          if (Number(request.headers['content-length'] ?? '0') > limit) throw mediaTooLarge(method.limits.maxSize);
          const spool = this.options.area.path('spool', `${hexId(this.options.ids, 12)}.part`);
          const upload =
            protocol === 'media'
              ? { metadata: {}, media: await spoolToFile(body, spool, method.limits.maxSize, mediaTypeOf(request.headers['content-type'])) }
              : await readMultipart(body, request.headers['content-type'] ?? '', spool, method.limits.maxSize);
          try {
            return send(reply, await method.complete(upload, context));
          } finally {
            // The method moved what it keeps; the spool itself is never kept.
            await rm(upload.media.path, { force: true });
          }
        } catch (error) {
          // Let the client finish sending before it reads the answer.
          if (!body.readableEnded) body.resume();
          throw error;
        }
      },
    });
  }
}

function readProtocol(value: unknown, fallback: UploadProtocol | undefined): UploadProtocol {
  if (value === undefined || value === '') {
    if (fallback !== undefined) return fallback;
    throw wrongUrlForUpload();
  }
  const text = Array.isArray(value) ? String(value[0]) : String(value);
  if (text === 'media' || text === 'multipart' || text === 'resumable') return text;
  throw new UploadError(400, 'invalid', 'INVALID_ARGUMENT', `Invalid value for uploadType: '${text}'. Expected one of: media, multipart, resumable.`);
}

function bodyOf(request: FastifyRequest): Readable {
  const body = request.body as Readable | undefined;
  return body !== undefined && typeof body.pipe === 'function' ? body : request.raw;
}

function mediaTypeOf(contentType: string | undefined): string {
  return contentType?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
}

function send(reply: FastifyReply, answer: UploadAnswer): FastifyReply {
  return reply.code(answer.status).header('content-type', 'application/json; charset=UTF-8').send(JSON.stringify(answer.body));
}

/**
 * spoolToFile writes a stream to `path` through a hashing, counting, size-capping pass. The
 * source is never destroyed on failure, only drained (so the client can still read the 4xx),
 * and the partial file is removed.
 */
async function spoolToFile(media: Readable, path: string, maxSize: number, mediaType: string): Promise<UploadedMedia> {
  const meter = new HashingMeter(maxSize);
  const written = pipeline(meter, createWriteStream(path, { flags: 'wx' }));
  const onError = (error: Error): void => void meter.destroy(error);
  const onClose = (): void => {
    if (!media.readableEnded) meter.destroy(badMultipart('The upload was interrupted before all of its bytes arrived.'));
  };
  media.once('error', onError);
  media.once('close', onClose);
  media.pipe(meter);
  try {
    await written;
  } catch (error) {
    media.unpipe(meter);
    media.resume();
    await rm(path, { force: true });
    throw error;
  } finally {
    // The error listener stays: a stream that errors later (a multipart part cut short after its
    // data was taken) must not become an uncaught 'error' event; destroying a done meter is a no-op.
    media.off('close', onClose);
  }
  return { path, size: meter.bytes, sha256: meter.hash.digest('hex'), mediaType };
}

/**
 * readMultipart parses `multipart/related` (the streaming parser of @fastify/busboy): the first
 * part is the JSON resource (may be `{}` or empty), the second the media, streamed to the file.
 */
function readMultipart(body: Readable, contentType: string, path: string, maxSize: number): Promise<CompletedUpload> {
  const boundary = /^multipart\/related\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  if (boundary === null) throw badMultipart(`Invalid multipart request: content type '${contentType}' is not multipart/related with a boundary.`);
  const dicer = new Dicer({ boundary: boundary[1] ?? boundary[2]!, maxHeaderPairs: 32 });
  return new Promise<CompletedUpload>((resolve, reject) => {
    let index = 0;
    let metadataText = '';
    let metadataDone: Promise<void> = Promise.resolve();
    let media: Promise<CompletedUpload> | undefined;
    let mediaPart: Readable | undefined;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      body.unpipe(dicer);
      body.resume();
      // A media part that will never end (the client went away) must still end its spool.
      mediaPart?.destroy();
      // The media write may still be open: let it settle (and remove its file) first.
      void (media ?? Promise.resolve())
        .catch(() => undefined)
        .finally(() => reject(error instanceof UploadError ? error : badMultipart(`Invalid multipart request: ${(error as Error).message}.`)));
    };
    dicer.on('part', (part) => {
      const at = index++;
      part.on('error', fail);
      if (at === 0) {
        part.on('data', (chunk: Buffer) => {
          metadataText += chunk.toString('utf8');
          if (metadataText.length > METADATA_LIMIT) fail(badMultipart('Invalid multipart request: the metadata part is too large.'));
        });
        // Part streams flow asynchronously: the media part's headers can arrive before this ends.
        metadataDone = new Promise((done) => part.once('end', done));
        return;
      }
      if (at > 1) {
        part.resume();
        fail(badMultipart('Invalid multipart request: expected exactly two parts (metadata and media).'));
        return;
      }
      mediaPart = part;
      part.once('header', async (headers: Record<string, string[] | undefined>) => {
        await metadataDone;
        if (failed) return;
        let metadata: unknown;
        try {
          metadata = metadataText.trim() === '' ? {} : (JSON.parse(metadataText) as unknown);
        } catch {
          metadata = undefined;
        }
        if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
          part.resume();
          fail(badMultipart('Invalid multipart request: the metadata part is not a JSON object.'));
          return;
        }
        const resource = metadata as Record<string, unknown>;
        media = spoolToFile(part, path, maxSize, mediaTypeOf(headers['content-type']?.[0])).then((file) => ({ metadata: resource, media: file }));
        media.catch(fail);
      });
    });
    dicer.on('error', fail);
    dicer.on('finish', () => {
      if (failed) return;
      if (media === undefined) fail(badMultipart('Invalid multipart request: the media part is missing.'));
      else media.then(resolve, fail);
    });
    body.on('error', fail);
    body.once('close', () => {
      if (!body.readableEnded) fail(badMultipart('The upload was interrupted before all of its bytes arrived.'));
    });
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
      callback(mediaTooLarge(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }
}
