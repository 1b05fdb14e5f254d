import { createHash, type Hash } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { BoundedMap } from '../../lib/bounded-map.ts';
import type { Clock } from '../../lib/clock.ts';
import type { IdSource } from '../../lib/ids.ts';
import { UploadOffsetError, type Store } from '../../store/index.ts';
import { badContentRange, mediaTooLarge, sessionNotFound } from './errors.ts';
import type { ContentRange } from './content-range.ts';
import type { UploadAnswer } from './upload-method.ts';
import { feed, hashFile, type SpooledFile } from './spool.ts';

/** SESSION_LIFETIME_MS is how long a resumable session lives (a week, as Google documents for its upload sessions). */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

const KIND = 'uploads.sessions';

/** RUNNING_HASHES bounds the sessions whose running SHA-256 this process keeps (each a few hundred bytes). */
const RUNNING_HASHES = 1024;

/** RunningHash is the SHA-256 of a session's first `size` committed bytes, every one of which passed through this process in order. */
interface RunningHash {
  readonly hash: Hash;
  size: number;
}

/** SessionRecord is a resumable session as the store keeps it; its bytes are `store.uploads` under `<family>/<id>`. */
export interface SessionRecord {
  readonly id: string;
  readonly methodId: string;
  /** The request path the session was started on, which its chunks are sent to. */
  readonly path: string;
  readonly context: unknown;
  readonly metadata: Record<string, unknown>;
  readonly mediaType: string;
  readonly maxSize: number;
  /** The declared total (`X-Upload-Content-Length` or a chunk's `/N`), once known. */
  readonly total: number | null;
  readonly createdAt: number;
  /** The method's answer, once completed: status queries and repeated final chunks get it again. */
  readonly result: UploadAnswer | null;
}

/** ChunkOutcome is what a PUT did: the session still wants bytes (`received` so far), or all are there. */
export type ChunkOutcome =
  | { readonly kind: 'incomplete'; readonly received: number }
  | { readonly kind: 'ready'; readonly session: SessionRecord; readonly received: number };

/**
 * ResumableSessions keeps resumable upload sessions of one family: records in the store, bytes
 * in the store's upload bytes, so a session survives a restart and is continued through any
 * replica of a shared store. The committed bytes are the truth about what was received; PUTs
 * on one session are serialised within a process, and across processes the store's offset
 * check lets only one of two racing chunks in.
 */
export class ResumableSessions {
  readonly #locks = new Map<string, Promise<unknown>>();
  /**
   * The running SHA-256 of sessions whose bytes all came through this process, in order, so the
   * last chunk need not read the whole upload again for its hash. A session that spans a
   * restart, a replica or a failed append has none, and is hashed from its bytes (spool).
   */
  readonly #hashes = new BoundedMap<string, RunningHash>(RUNNING_HASHES);

  constructor(
    private readonly family: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {}

  /** sweep forgets expired sessions and removes upload bytes no session owns (left by a crash). */
  async sweep(): Promise<void> {
    const records = await this.store.list<SessionRecord>(KIND, { prefix: `${this.family}/` });
    for (const record of records) {
      if (this.#expired(record.value)) await this.#forget(record.value.id);
    }
    // The session records are listed again after the bytes, so a session started meanwhile (on
    // another replica) is never taken for an orphan.
    await this.store.uploads.sweep(`${this.family}/`, async () => {
      const live = await this.store.list<SessionRecord>(KIND, { prefix: `${this.family}/` });
      return new Set(live.filter((record) => record.value.result === null).map((record) => this.#bytes(record.value.id)));
    });
  }

  /** create starts a session and returns its `upload_id`. */
  async create(fields: Omit<SessionRecord, 'id' | 'createdAt' | 'result'>): Promise<SessionRecord> {
    const id = this.ids.bytes(24).toString('base64url');
    const record: SessionRecord = { ...fields, id, createdAt: this.clock.now(), result: null };
    await this.store.transact((tx) => tx.put(KIND, `${this.family}/${id}`, record, { expectRevision: 0 }));
    return record;
  }

  /** get finds a live session; unknown and expired ones are a 404. */
  async get(id: string): Promise<SessionRecord> {
    // Anything but the alphabet ids are made of is simply unknown.
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw sessionNotFound(id);
    const record = await this.store.get<SessionRecord>(KIND, `${this.family}/${id}`);
    if (record === undefined) throw sessionNotFound(id);
    if (this.#expired(record.value)) {
      await this.#forget(id);
      throw sessionNotFound(id);
    }
    return record.value;
  }

  /** received is how many bytes of the session are committed. */
  async received(id: string): Promise<number> {
    return this.store.uploads.size(this.#bytes(id));
  }

  /** exclusive runs `fn` with no other PUT of the same session in flight. */
  async exclusive<R>(id: string, fn: () => Promise<R>): Promise<R> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.#locks.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(id) === settled) this.#locks.delete(id);
    }
  }

  /**
   * append writes one PUT's bytes at the session's end: bytes the session already has (a client
   * re-sending an overlapping chunk) are skipped, a chunk starting past the end is refused (as
   * Google does), and bytes beyond the declared chunk or total are refused. Whatever arrived
   * before a client dropped is committed, and the next status query reports it.
   */
  async append(
    session: SessionRecord,
    range: Exclude<ContentRange, { kind: 'query' }>,
    body: Readable,
    contentLength: number | undefined,
  ): Promise<ChunkOutcome> {
    const received = await this.received(session.id);
    const start = range.kind === 'chunk' ? range.start : 0;
    const declaredTotal = range.kind === 'chunk' ? range.total : contentLength;
    if (start > received) {
      throw badContentRange(
        `Invalid request. According to the Content-Range header, the upload offset is ${start} byte(s), which exceeds already uploaded size of ${received} byte(s).`,
      );
    }
    const total = await this.#settleTotal(session, declaredTotal);
    const chunkLength = range.kind === 'chunk' ? range.end - range.start + 1 : undefined;
    if (chunkLength !== undefined && contentLength !== undefined && contentLength !== chunkLength) {
      throw badContentRange(`Invalid request. The Content-Range header describes ${chunkLength} byte(s), but the body has ${contentLength} byte(s).`);
    }
    const limit = Math.min(session.maxSize, total ?? Number.MAX_SAFE_INTEGER);
    const chunkEnd = chunkLength === undefined ? limit : start + chunkLength;
    let skip = received - start;
    let position = start;
    const running = this.#runningHash(session.id, received);
    const writer = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        position += chunk.length;
        if (position > chunkEnd) {
          callback(
            position > session.maxSize
              ? mediaTooLarge(session.maxSize)
              : badContentRange(`Invalid request. The body is longer than the ${chunkEnd - start} byte(s) the Content-Range header describes.`),
          );
          return;
        }
        if (skip >= chunk.length) {
          skip -= chunk.length;
          callback();
          return;
        }
        const keep = skip > 0 ? chunk.subarray(skip) : chunk;
        skip = 0;
        if (running !== undefined) {
          running.hash.update(keep);
          running.size += keep.length;
        }
        callback(null, keep);
      },
    });
    let now: number;
    try {
      now = await this.store.uploads.append(this.#bytes(session.id), received, feed(body, writer));
    } catch (error) {
      // What was hashed may not all be committed (a piece still on its way when the client left).
      this.#hashes.delete(session.id);
      if (!(error instanceof UploadOffsetError)) throw error;
      // Another replica committed bytes of this session between our size check and our append.
      body.resume();
      throw badContentRange(
        `Invalid request. Another request added bytes to this upload at the same time; ${error.size} byte(s) are uploaded now. Query the upload status and resume from there.`,
      );
    }
    if (running !== undefined && running.size !== now) this.#hashes.delete(session.id);
    const finalTotal = total ?? (range.kind === 'whole' ? now : undefined);
    if (finalTotal !== undefined && total === undefined) await this.#settleTotal(session, finalTotal);
    if (finalTotal !== undefined && now >= finalTotal) return { kind: 'ready', session: await this.get(session.id), received: now };
    return { kind: 'incomplete', received: now };
  }

  /**
   * spool puts a finished session's bytes in a new local file at `path` for the method to
   * inspect with random access (a link where the store keeps them as local files, a streamed
   * copy otherwise). Its SHA-256 is the running hash when every byte came through this process
   * (the size on disk says whether it covers them all); otherwise (the session spans restarts or
   * replicas) the file is read once for it.
   */
  async spool(id: string, path: string): Promise<SpooledFile> {
    await this.store.uploads.copyTo(this.#bytes(id), path);
    try {
      const running = this.#hashes.get(id);
      if (running !== undefined) {
        const { size } = await stat(path);
        // A copy: completion may run again (a method that failed leaves the session to be abandoned, a retry spools anew).
        if (size === running.size) return { path, size, sha256: running.hash.copy().digest('hex') };
      }
      return { path, ...(await hashFile(path)) };
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  /** finish records the method's answer and drops the bytes; later status queries get the answer again. */
  async finish(session: SessionRecord, result: UploadAnswer): Promise<void> {
    this.#hashes.delete(session.id);
    await this.store.transact((tx) => tx.put(KIND, `${this.family}/${session.id}`, { ...session, result }));
    await this.store.uploads.remove(this.#bytes(session.id));
  }

  /** abandon forgets a session whose completion failed: the client must start again. */
  async abandon(id: string): Promise<void> {
    await this.#forget(id);
  }

  async #settleTotal(session: SessionRecord, declared: number | undefined): Promise<number | undefined> {
    if (declared === undefined) return session.total ?? undefined;
    if (declared > session.maxSize) throw mediaTooLarge(session.maxSize);
    if (session.total !== null && session.total !== declared) {
      throw badContentRange(
        `Invalid request. The total size ${declared} in the Content-Range header differs from the ${session.total} byte(s) declared earlier.`,
      );
    }
    if (session.total === null) {
      await this.store.transact((tx) => tx.put(KIND, `${this.family}/${session.id}`, { ...session, total: declared }));
    }
    return declared;
  }

  #expired(record: SessionRecord): boolean {
    return this.clock.now() - record.createdAt > SESSION_LIFETIME_MS;
  }

  /**
   * #runningHash is the running hash to extend with an append starting at `received`: the
   * session's own when it covers exactly the bytes committed so far, a new one for a session
   * with no bytes yet, and none when this process has not seen every byte (it is dropped).
   */
  #runningHash(id: string, received: number): RunningHash | undefined {
    const running = this.#hashes.get(id);
    if (running !== undefined && running.size === received) return running;
    this.#hashes.delete(id);
    if (received !== 0) return undefined;
    const fresh: RunningHash = { hash: createHash('sha256'), size: 0 };
    this.#hashes.set(id, fresh);
    return fresh;
  }

  async #forget(id: string): Promise<void> {
    this.#hashes.delete(id);
    await this.store.transact((tx) => tx.delete(KIND, `${this.family}/${id}`));
    await this.store.uploads.remove(this.#bytes(id));
  }

  /** #bytes names a session's upload bytes: per family, like its record. */
  #bytes(id: string): string {
    return `${this.family}/${id}`;
  }
}
