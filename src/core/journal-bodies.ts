/**
 * Request and response bodies for the journal, kept only when asked (`--journal-bodies`): the first
 * bytes of each body, up to a limit, with its full size. A request body is tapped as it streams to
 * the family's parser (a pass-through that copies at most the limit), so every route, uploads
 * included, reads exactly what the client sent; an answer is kept as sent when it is a string or
 * bytes, and as its first bytes with no size when it is a stream (a download, a watch).
 */
import type { IncomingMessage } from 'node:http';
import { pipeline, Transform, type Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { CapturedBody } from './journal.ts';

/** Captures are one request's kept bodies, filled while it is served. */
interface Captures {
  /** The request body's tap and media type; read when the journal records the request. */
  request?: { readonly tap: BodyTap; readonly contentType: string | undefined };
  response?: CapturedBody;
}

const captured = new WeakMap<IncomingMessage, Captures>();

/** capturedBodiesOf is what was kept of a request's bodies (empty when bodies are not recorded). */
export function capturedBodiesOf(raw: IncomingMessage): { requestBody?: CapturedBody; responseBody?: CapturedBody } {
  const captures = captured.get(raw);
  if (captures === undefined) return {};
  const request = captures.request;
  // The parser may stop reading early (a refused body): what arrived by the answer is what is kept.
  const requestBody =
    request === undefined || request.tap.size === 0 ? undefined : { contentType: request.contentType, bytes: request.tap.kept(), size: request.tap.size };
  return {
    ...(requestBody === undefined ? {} : { requestBody }),
    ...(captures.response === undefined ? {} : { responseBody: captures.response }),
  };
}

/** BodyTap passes a body through unchanged, copying its first `limit` bytes and counting the rest. */
class BodyTap extends Transform {
  readonly #limit: number;
  readonly #kept: Buffer[] = [];
  #keptBytes = 0;
  size = 0;
  /** Fastify compares this with Content-Length and the body limit, as it does for the raw request. */
  receivedEncodedLength = 0;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    this.receivedEncodedLength = this.size;
    const room = this.#limit - this.#keptBytes;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.#kept.push(Buffer.from(part));
      this.#keptBytes += part.length;
    }
    callback(null, chunk);
  }

  /** kept is the copied start of the body. */
  kept(): Buffer {
    return Buffer.concat(this.#kept, this.#keptBytes);
  }
}

/** useBodyCapture keeps the first `limit` bytes of each request and response body of the app's requests. */
export function useBodyCapture(app: FastifyInstance, limit: number): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const tap = new BodyTap(limit);
    captured.set(request.raw, { request: { tap, contentType: request.headers['content-type'] } });
    // pipeline ends the tap with the client's abort or a premature close, as the parser would see it.
    pipeline(payload, tap, () => undefined);
    done(null, tap as unknown as typeof payload);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const header = reply.getHeader('content-type');
    const contentType = header === undefined ? undefined : String(header);
    let body: CapturedBody | undefined;
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
      body = { contentType, bytes: bytes.subarray(0, limit), size: bytes.length };
    } else if (payload !== null && payload !== undefined && typeof (payload as Readable).pipe === 'function') {
      body = { contentType, bytes: Buffer.alloc(0), size: null };
    }
    if (body !== undefined) {
      const captures = captured.get(request.raw) ?? {};
      captures.response = body;
      captured.set(request.raw, captures);
    }
    done(null, payload);
  });
}
