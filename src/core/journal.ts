/**
 * The request journal: a bounded ring of the requests the families answered, newest last, for
 * tests and the web console to read (`GET /_fogbank/requests`). Recording is one small object per
 * request and a slot write: what a reader wants (the API method id, the principal, RFC 3339 time)
 * is worked out when read, from what was kept (the path, the Authorization header): the hot path
 * reads no route options (Fastify builds an object for each read of them).
 */

import { BoundedMap } from '../lib/bounded-map.ts';

/** DEFAULT_JOURNAL_SIZE is how many requests the journal keeps when none is configured. */
export const DEFAULT_JOURNAL_SIZE = 1000;

/** CapturedBody is the start of a request or response body, kept when the journal records bodies. */
export interface CapturedBody {
  /** The body's media type as sent (the Content-Type header), if any. */
  readonly contentType: string | undefined;
  /** The first bytes of the body, at most the journal's body limit. */
  readonly bytes: Buffer;
  /** How many bytes the body had in all; null for an answer streamed past what was kept. */
  readonly size: number | null;
}

/** JournalRecord is one answered request as recorded on the hot path. */
export interface JournalRecord {
  /** When the answer finished, on the server's clock (milliseconds since the epoch). */
  readonly time: number;
  readonly family: string;
  /** The HTTP method. */
  readonly httpMethod: string;
  /** The path and query as the client sent them. */
  readonly url: string;
  /** The path and query as routed (a path alias rewritten to its canonical prefix). */
  readonly routedUrl: string;
  /** The Authorization header, read into a principal only when the journal is read. */
  readonly authorization: string | undefined;
  readonly status: number;
  readonly latencyMs: number;
  /** The fault that fired on this request (its RequestInfo's, core/request-info.ts), or null. */
  readonly fault: unknown;
  /** The request's body, when the journal records bodies and the request had one. */
  readonly requestBody?: CapturedBody;
  /** The answer's body, when the journal records bodies and the answer had one. */
  readonly responseBody?: CapturedBody;
  /** What decided a request journaled from outside the server (`fogbank guard`: Cloud Armor's request-log payload). */
  readonly jsonPayload?: unknown;
}

/** SHARED_STRINGS is how many distinct strings (paths, Authorization headers) the journal keeps one copy of. */
const SHARED_STRINGS = 256;

/** JournalListener hears each record as it is added. */
export type JournalListener = (record: JournalRecord) => void;

/** RequestJournal is the ring: fixed capacity, oldest out. */
export class RequestJournal {
  readonly capacity: number;
  /** How many bytes of each request and response body are kept; 0 keeps none (the default: bodies only when asked). */
  readonly bodyLimit: number;
  readonly #slots: (JournalRecord | undefined)[];
  #next = 0;
  #count = 0;
  readonly #listeners = new Set<JournalListener>();
  readonly #strings = new BoundedMap<string, string>(SHARED_STRINGS);

  constructor(capacity = DEFAULT_JOURNAL_SIZE, bodyLimit = 0) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`the journal size must be a whole number, not ${capacity}`);
    if (!Number.isInteger(bodyLimit) || bodyLimit < 0) throw new RangeError(`the journal's body limit must be a whole number of bytes, not ${bodyLimit}`);
    this.capacity = capacity;
    this.bodyLimit = bodyLimit;
    this.#slots = new Array<JournalRecord | undefined>(capacity);
  }

  /** record adds one answered request (the oldest goes when full) and tells the listeners. */
  record(entry: JournalRecord): void {
    if (this.capacity > 0) {
      this.#slots[this.#next] = entry;
      this.#next = this.#next + 1 === this.capacity ? 0 : this.#next + 1;
      if (this.#count < this.capacity) this.#count++;
    }
    if (this.#listeners.size > 0) for (const listener of this.#listeners) listener(entry);
  }

  /**
   * shared is `text`, or an equal string a record kept before: the request's own copy (a new
   * string per request, from the parser) is then garbage at once instead of living as long as its
   * record. Clients repeat their paths and send the same token on every request; a kept copy per
   * record was promoted to the old generation, about 120 bytes per cluster GET that a full
   * collection later had to reclaim (`--trace-gc-nvp` over 20,000 GETs: 4 bytes with them shared,
   * as with the journal off).
   */
  shared<T extends string | undefined>(text: T): T {
    if (text === undefined) return text;
    const kept = this.#strings.get(text);
    if (kept !== undefined) return kept as T;
    this.#strings.set(text, text);
    return text;
  }

  /** size is how many requests are kept now. */
  get size(): number {
    return this.#count;
  }

  /** newestFirst walks the kept records from the newest to the oldest. */
  *newestFirst(): Generator<JournalRecord> {
    for (let i = 1; i <= this.#count; i++) {
      const slot = this.#slots[(this.#next - i + this.capacity) % this.capacity];
      if (slot !== undefined) yield slot;
    }
  }

  /** clear forgets every kept record. */
  clear(): void {
    this.#slots.fill(undefined);
    this.#next = 0;
    this.#count = 0;
  }

  /** subscribe hears every record added from now on; the result stops it. */
  subscribe(listener: JournalListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
