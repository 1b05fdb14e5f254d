/**
 * The guard's decisions in fogbank's request journal (family `guard`, `POST /_fogbank/requests`),
 * sent in batches: one round trip per moment, not per request, so journaling costs the proxy
 * almost nothing. A batch fogbank cannot take is dropped (the stdout log has every decision), and
 * the first such failure of an outage is said once.
 */
import { Agent, request as httpRequest } from 'node:http';

/** GuardJournalEntry is one decision as the journal takes it, its jsonPayload already serialised (the log line shares it). */
export interface GuardJournalEntry {
  readonly httpMethod: string;
  readonly url: string;
  readonly status: number;
  readonly latencyMs: number;
  /** payloadJson is JSON.stringify of the entry's `jsonPayload`. */
  readonly payloadJson: string;
}

/** entryJson is the entry as the append body lists it: `{"httpMethod", "url", "status", "latencyMs", "jsonPayload"}`. */
function entryJson(entry: GuardJournalEntry): string {
  const head = JSON.stringify({ httpMethod: entry.httpMethod, url: entry.url, status: entry.status, latencyMs: entry.latencyMs });
  return `${head.slice(0, -1)},"jsonPayload":${entry.payloadJson}}`;
}

/** FLUSH_MS is how long a decision waits for others to share its round trip. */
const FLUSH_MS = 50;
/** MAX_BATCH is the most entries one append carries (the admin API's limit). */
const MAX_BATCH = 1000;
/** MAX_QUEUED bounds what waits while fogbank is slow or away; beyond it the oldest go. */
const MAX_QUEUED = 20_000;

/** JournalSink batches entries to fogbank. */
export class JournalSink {
  readonly #url: string;
  readonly #token: string | undefined;
  readonly #warn: (line: string) => void;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 2 });
  #queue: GuardJournalEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** #sending is the batch on its way, if one is. */
  #sending: Promise<void> | undefined;
  #failing = false;

  constructor(url: string, token: string | undefined, warn: (line: string) => void) {
    this.#url = url;
    this.#token = token;
    this.#warn = warn;
  }

  /** add queues one entry. */
  add(entry: GuardJournalEntry): void {
    this.#queue.push(entry);
    if (this.#queue.length > MAX_QUEUED) this.#queue.splice(0, this.#queue.length - MAX_QUEUED);
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /**
   * flush sends a batch, and more at once only while full ones wait (a burst); what is left waits
   * for the next tick of FLUSH_MS, so a steady stream costs one round trip per FLUSH_MS, not one
   * per round-trip time. `all` (closing) sends everything. Resolves when sent or dropped.
   */
  async flush(all = false): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sending !== undefined) {
      await this.#sending;
      if (all) await this.flush(true);
      return;
    }
    let done!: () => void;
    this.#sending = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        const problem = await this.#send(batch);
        if (problem === undefined) {
          this.#failing = false;
          if (!all && this.#queue.length < MAX_BATCH) break;
          continue;
        }
        if (!this.#failing) this.#warn(`guard: decisions not journaled in fogbank (${problem}); they are still logged here`);
        this.#failing = true;
        break;
      }
    } finally {
      this.#sending = undefined;
      done();
    }
    if (this.#queue.length > 0) this.#timer ??= setTimeout(() => void this.flush(), this.#failing ? 1000 : FLUSH_MS);
  }

  /** close sends what is left and releases the connections. */
  async close(): Promise<void> {
    await this.flush(true);
    clearTimeout(this.#timer);
    this.#agent.destroy();
  }

  #send(entries: readonly GuardJournalEntry[]): Promise<string | undefined> {
    const body = `{"entries":[${entries.map(entryJson).join(',')}]}`;
    return new Promise((resolve) => {
      const request = httpRequest(`${this.#url}/_fogbank/requests`, {
        method: 'POST',
        agent: this.#agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(this.#token === undefined ? {} : { authorization: `Bearer ${this.#token}` }),
        },
        timeout: 5000,
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode === 201 ? undefined : `fogbank answered ${response.statusCode}`));
      });
      request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
      request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      request.end(body);
    });
  }
}
