import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import { HeldLease, type Store } from '../../store/index.ts';
import { parseContentRange, rangeHeader } from './content-range.ts';
import { completionInProgress, invalidUploadType, mediaTooLarge, unsupportedMediaType, uploadNotProcessed, wrongUrlForUpload } from './errors.ts';
import type { FileArea } from './file-area.ts';
import { acceptsMediaType, parseContentType } from './media-type.ts';
import { ResumableSessions, type SessionRecord } from './resumable-sessions.ts';
import { spoolToFile } from './spool.ts';
import type { CompletedUpload, UploadAnswer, UploadMethod } from './upload-method.ts';
import { METADATA_LIMIT, parseMetadata } from './upload-metadata.ts';

/** UploadEngineOptions are what an engine needs: the family it serves, state, time, ids and its file area. */
export interface UploadEngineOptions {
  /** The family name; sessions are kept under it. */
  readonly family: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly area: FileArea;
  /** How long a method may take to process a received upload before the request is answered 503 (default DEFAULT_COMPLETION_DEADLINE_MS). */
  readonly completionDeadlineMs?: number;
}

/**
 * DEFAULT_COMPLETION_DEADLINE_MS bounds a method's processing of a received upload: generous (a
 * multi-gigabyte bundle is inspected in well under a second, its bytes are already on disk), and
 * only there so that no fault in a method can leave a request unanswered.
 */
export const DEFAULT_COMPLETION_DEADLINE_MS = 30_000;

/** UploadProtocol is the `uploadType` of a request, with `resumable` the default on the `/resumable/upload/...` alias. */
type UploadProtocol = 'media' | 'multipart' | 'resumable';

const JSON_TYPE = 'application/json; charset=UTF-8';

/** COMPLETION_LEASE_MS is the lease on a completing session; renewed while the method runs, so only a dead replica's expires. */
const COMPLETION_LEASE_MS = 30_000;

/**
 * UploadEngine serves Google's three upload protocols for one family's media methods:
 * `uploadType=media` (the body is the media), `uploadType=multipart` (`multipart/related`: JSON
 * metadata, then the media) and `uploadType=resumable` (initiate → 200 + `Location` with
 * `upload_id`; PUT chunks → 308 + `Range` until complete; status queries `bytes *\/N`). Bodies
 * stream to files while they are measured and hashed; a method gets a file path, never a buffer.
 */
export class UploadEngine {
  readonly #sessions: ResumableSessions;
  readonly #methods = new Map<string, UploadMethod<unknown>>();
  /** #holder names this engine when it holds a session's completion lease. */
  readonly #holder: string;
  /** The completions running now, each stopped by its controller (deadline or close). */
  readonly #running = new Set<AbortController>();
  #closed = false;

  constructor(private readonly options: UploadEngineOptions) {
    this.#sessions = new ResumableSessions(options.family, options.store, options.clock, options.ids);
    // Not a resource id: it only tells this engine's lease holds from other replicas'.
    this.#holder = randomUUID();
  }

  /** open sweeps expired sessions and orphaned files; call once before serving. */
  async open(): Promise<void> {
    await this.#sessions.sweep();
  }

  /**
   * close answers every upload still being processed with a 503 at once and refuses to process
   * more, so a shutdown never waits for a method (call it before in-flight requests are awaited).
   */
  close(): void {
    this.#closed = true;
    for (const running of this.#running) running.abort(uploadNotProcessed());
  }

  /**
   * streamBodies makes every route of `scope` receive its body as the raw request stream, with no
   * size limit of core's JSON parser (each method's own `maxSize` applies instead). Call it on a
   * scope that holds only upload routes.
   */
  streamBodies(scope: FastifyInstance): void {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: unknown) => void) => done(null, payload));
  }

  /**
   * route serves `method` at `url` in `scope` (a scope prepared by streamBodies): `verb` (the
   * method's own HTTP method) starts uploads of every protocol, and PUT or `verb` with
   * `upload_id` carries a resumable session's bytes.
   */
  route<C>(scope: FastifyInstance, verb: HTTPMethods, url: string, method: UploadMethod<C>, defaultProtocol?: UploadProtocol): void {
    this.#methods.set(method.id, method as UploadMethod<unknown>);
    const verbs: HTTPMethods[] = verb === 'PUT' ? ['PUT'] : [verb, 'PUT'];
    scope.route({
      method: verbs,
      url,
      handler: async (request, reply) => {
        const query = (request.query ?? {}) as Record<string, unknown>;
        const uploadId = query['upload_id'];
        if (typeof uploadId === 'string') return this.#resume(uploadId, request, reply);
        if (request.method !== verb) return this.#refuseVerb(request);
        const protocol = readProtocol(query['uploadType'], defaultProtocol);
        switch (protocol) {
          case 'media':
            return this.#media(method, request, reply);
          case 'multipart':
            return this.#multipart(method, request, reply);
          case 'resumable':
            return this.#initiate(method, request, reply);
        }
      },
    });
  }

  async #refuseVerb(request: FastifyRequest): Promise<never> {
    drain(request);
    throw wrongUrlForUpload();
  }

  async #media<C>(method: UploadMethod<C>, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const mediaType = parseContentType(request.headers['content-type']).mediaType || 'application/octet-stream';
    const context = await this.#begin(method, request);
    if (!acceptsMediaType(method.limits, mediaType)) throw unsupportedMediaType(mediaType, method.limits.accept);
    refuseDeclaredLength(request, method.limits.maxSize);
    return this.#withSpool(async (path) => {
      const spooled = await spoolToFile(bodyOf(request), path, method.limits.maxSize);
      return send(reply, await this.#process(method, { metadata: {}, media: { ...spooled, mediaType } }, context));
    });
  }

  async #multipart<C>(method: UploadMethod<C>, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const context = await this.#begin(method, request);
    refuseDeclaredLength(request, method.limits.maxSize + METADATA_LIMIT);
    // The MIME splitter (and the charset tables it brings) loads with the first multipart upload.
    const { readMultipartRelated } = await import('./multipart-related.ts');
    return this.#withSpool(async (path) => {
      const upload = await readMultipartRelated(bodyOf(request), request.headers['content-type'] ?? '', path, method.limits);
      return send(reply, await this.#process(method, { metadata: upload.metadata, media: { ...upload.media, mediaType: upload.mediaType } }, context));
    });
  }

  async #initiate<C>(method: UploadMethod<C>, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const context = await this.#begin(method, request);
    const declaredType = header(request, 'x-upload-content-type');
    const mediaType = declaredType === undefined ? 'application/octet-stream' : parseContentType(declaredType).mediaType;
    if (declaredType !== undefined && !acceptsMediaType(method.limits, mediaType)) throw unsupportedMediaType(mediaType, method.limits.accept);
    const declaredLength = header(request, 'x-upload-content-length');
    const total = declaredLength === undefined || !/^\d+$/.test(declaredLength) ? null : Number(declaredLength);
    if (total !== null && total > method.limits.maxSize) throw mediaTooLarge(method.limits.maxSize);
    const metadata = parseMetadata(await readSmallBody(bodyOf(request)));
    // The target as the client sent it (an alias stays an alias): the session URL is where it sends the bytes.
    const path = request.originalUrl.split('?')[0] ?? request.originalUrl;
    const session = await this.#sessions.create({ methodId: method.id, path, context, metadata, mediaType, maxSize: method.limits.maxSize, total });
    const location = `${request.protocol}://${request.headers.host ?? 'localhost'}${withUploadId(request.originalUrl, session.id)}`;
    return reply.code(200).headers({ location, 'x-guploader-uploadid': session.id, 'content-length': '0' }).send();
  }

  async #resume(uploadId: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const range = parseContentRange(header(request, 'content-range'));
    return this.#sessions.exclusive(uploadId, async () => {
      const session = await this.#sessions.get(uploadId);
      const headers = { 'x-guploader-uploadid': uploadId };
      if (session.result !== null) {
        drain(request);
        return send(reply.headers(headers), session.result);
      }
      if (range.kind === 'query') {
        drain(request);
        const received = await this.#sessions.received(uploadId);
        // Every byte is there but no answer was recorded (the replica completing it died, or
        // lost the race to another): the status query completes the upload.
        if (session.total !== null && received >= session.total) return send(reply.headers(headers), await this.#finishSession(session));
        return reply
          .code(308)
          .headers({ ...headers, ...rangeHeader(received), 'content-length': '0' })
          .send();
      }
      const length = header(request, 'content-length');
      const outcome = await this.#sessions.append(session, range, bodyOf(request), length === undefined ? undefined : Number(length));
      if (outcome.kind === 'incomplete')
        return reply
          .code(308)
          .headers({ ...headers, ...rangeHeader(outcome.received), 'content-length': '0' })
          .send();
      return send(reply.headers(headers), await this.#finishSession(outcome.session));
    });
  }

  /**
   * #finishSession runs the method once for a session whose bytes are all there. Replicas of a
   * shared store may both see the last byte (a client retrying the final chunk elsewhere), so
   * completion holds a lease on the session; the other gets a retryable 503 and, on its status
   * query, the answer.
   */
  async #finishSession(ready: SessionRecord): Promise<UploadAnswer> {
    const method = this.#methods.get(ready.methodId);
    if (method === undefined) throw new Error(`upload session ${ready.id} names an unknown method ${ready.methodId}`);
    const lease = await HeldLease.take(this.options.store.leases, `uploads.complete/${this.options.family}/${ready.id}`, this.#holder, COMPLETION_LEASE_MS);
    if (lease === undefined) throw completionInProgress();
    try {
      const session = await this.#sessions.get(ready.id);
      return session.result ?? (await this.#complete(method, session));
    } finally {
      await lease.release();
    }
  }

  async #complete(method: UploadMethod<unknown>, session: SessionRecord): Promise<UploadAnswer> {
    const answer = await this.#withSpool(async (path) => {
      const file = await this.#sessions.spool(session.id, path);
      try {
        return await this.#process(method, { metadata: session.metadata, media: { ...file, mediaType: session.mediaType } }, session.context);
      } catch (error) {
        await this.#sessions.abandon(session.id);
        throw error;
      }
    });
    await this.#sessions.finish(session, answer);
    return answer;
  }

  /**
   * #process runs the method on a received upload under the engine's deadline: if the method has
   * not answered by then (or the engine closes first), the request is answered 503 at once, the
   * method's signal is aborted so it keeps nothing, and whatever it does later is ignored.
   */
  async #process<C>(method: UploadMethod<C>, upload: Omit<CompletedUpload, 'signal'>, context: C): Promise<UploadAnswer> {
    const controller = new AbortController();
    const stopped = new Promise<never>((_resolve, reject) =>
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }),
    );
    // Nobody awaits `stopped` once the method answered; its rejection must not surface.
    stopped.catch(() => undefined);
    if (this.#closed) controller.abort(uploadNotProcessed());
    const timer = setTimeout(() => controller.abort(uploadNotProcessed()), this.options.completionDeadlineMs ?? DEFAULT_COMPLETION_DEADLINE_MS);
    this.#running.add(controller);
    try {
      const work = controller.signal.aborted ? stopped : method.complete({ ...upload, signal: controller.signal }, context);
      // A method that fails after the answer was given fails for nobody.
      work.catch(() => undefined);
      return await Promise.race([work, stopped]);
    } finally {
      clearTimeout(timer);
      this.#running.delete(controller);
    }
  }

  async #begin<C>(method: UploadMethod<C>, request: FastifyRequest): Promise<C> {
    try {
      return await method.begin(request);
    } catch (error) {
      drain(request);
      throw error;
    }
  }

  /**
   * #withSpool runs `work` with a fresh spool path and removes whatever is at that path when it
   * ends, however it ends: a method moves or links what it keeps, and a body that failed
   * half-way (parse error, disconnect, 413) leaves nothing behind.
   */
  async #withSpool<T>(work: (path: string) => Promise<T>): Promise<T> {
    const path = this.options.area.path('spool', randomUUID());
    try {
      return await work(path);
    } finally {
      await rm(path, { force: true });
    }
  }
}

function readProtocol(value: unknown, fallback: UploadProtocol | undefined): UploadProtocol {
  if (value === undefined || value === '') {
    if (fallback !== undefined) return fallback;
    throw wrongUrlForUpload();
  }
  const text = Array.isArray(value) ? String(value[0]) : String(value);
  if (text === 'media' || text === 'multipart' || text === 'resumable') return text;
  throw invalidUploadType(text);
}

function bodyOf(request: FastifyRequest): Readable {
  const body = request.body as Readable | undefined;
  return body !== undefined && typeof body.pipe === 'function' ? body : request.raw;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** refuseDeclaredLength answers 413 before reading when the declared Content-Length is already too large. */
function refuseDeclaredLength(request: FastifyRequest, limit: number): void {
  const length = Number(header(request, 'content-length') ?? '0');
  if (length > limit) {
    drain(request);
    throw mediaTooLarge(limit);
  }
}

/** drain discards a body the answer does not need, so the connection can carry the next request. */
function drain(request: FastifyRequest): void {
  const body = bodyOf(request);
  if (!body.readableEnded) body.resume();
}

async function readSmallBody(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > METADATA_LIMIT) {
      body.resume();
      throw mediaTooLarge(METADATA_LIMIT);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function withUploadId(url: string, uploadId: string): string {
  const [path, query = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.delete('upload_id');
  if (!params.has('uploadType')) params.set('uploadType', 'resumable');
  params.set('upload_id', uploadId);
  return `${path}?${params.toString()}`;
}

function send(reply: FastifyReply, answer: UploadAnswer): FastifyReply {
  return reply.code(answer.status).header('content-type', JSON_TYPE).send(JSON.stringify(answer.body));
}
