import pg from 'pg';
import { ChangeHub } from './change-hub.ts';
import { Mutex } from './mutex.ts';
import { CHANGES_CHANNEL, RESET_PREFIX } from './postgres-sql.ts';
import { CompactedError, type Change } from './store.ts';

/** FeedSource is how the feed reads the database (the store's own reads). */
export interface FeedSource {
  /** changesAfter reads up to `limit` changes after `revision`, every kind, oldest first. */
  changesAfter(revision: number, limit: number): Promise<Change[]>;
}

/** PostgresFeedOptions tune how the feed notices other replicas' commits. */
export interface PostgresFeedOptions {
  /** How often to look for missed commits while there are subscribers (default 1 s). */
  readonly pollMs?: number;
  /** Longest pause between attempts to re-establish LISTEN (default 5 s). */
  readonly maxBackoffMs?: number;
  /** Told about connection trouble (the store is still serving). */
  readonly onTrouble?: (message: string) => void;
}

const PAGE = 1000;

/**
 * PostgresFeed feeds this replica's ChangeHub with every committed change, whichever replica
 * committed it, in revision order and exactly once.
 *
 * The changes table is the source of truth; notifications only say "look now". A dedicated
 * connection LISTENs on CHANGES_CHANNEL (every commit NOTIFYs its last revision); on a
 * notification, on a timer while anyone subscribes, and after LISTEN is re-established, the
 * feed reads the changes after the last one it published. A lost notification therefore only
 * delays delivery until the next poll. Local commits are published straight from the
 * transaction (no read back), after any older changes of other replicas they must follow.
 */
export class PostgresFeed {
  readonly hub = new ChangeHub();
  readonly #config: pg.ClientConfig;
  readonly #source: FeedSource;
  readonly #options: PostgresFeedOptions;
  // One publisher at a time keeps the hub's order.
  readonly #mutex = new Mutex();
  #published: number;
  /** The newest state replacement the hub was told of (see reset). */
  #resetSeen = 0;
  #listener: pg.Client | undefined;
  #listening = false;
  #retry: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #backoff = 100;
  #wakeQueued = false;
  /** The revision a local commit in flight ends at (see committing). */
  #committing: number | undefined;
  #closed = false;

  constructor(config: pg.ClientConfig, source: FeedSource, revision: number, options: PostgresFeedOptions = {}) {
    this.#config = config;
    this.#source = source;
    this.#published = revision;
    this.#options = options;
  }

  /** listening is true while the LISTEN connection is up. */
  get listening(): boolean {
    return this.#listening;
  }

  /** start opens the LISTEN connection (failing if the database cannot be reached) and the poll timer. */
  async start(): Promise<void> {
    await this.#listen();
    this.#poll = setInterval(() => {
      if (this.hub.size > 0) this.wake();
    }, this.#options.pollMs ?? 1_000);
    this.#poll.unref();
  }

  /**
   * committing says this replica is committing up to `revision` and will publish it itself
   * (publishLocal), so its own notification, which may arrive first, needs no read of the
   * changes table; undefined when that commit failed (a notification of that revision is then
   * another replica's).
   */
  committing(revision: number | undefined): void {
    this.#committing = revision;
  }

  /** publishLocal publishes changes this replica just committed, after any older ones it has not published yet. */
  async publishLocal(changes: readonly Change[]): Promise<void> {
    const first = changes[0];
    if (first === undefined) return;
    const last = changes[changes.length - 1]!.revision;
    await this.#mutex.run(async () => {
      if (this.hub.size === 0) {
        this.#published = Math.max(this.#published, last);
        return;
      }
      // Commits hold the write lock in turn: everything below `first` is committed already.
      if (this.#published < first.revision - 1) await this.#catchUp(first.revision - 1).catch((error: unknown) => this.#trouble(error));
      const fresh = changes.filter((change) => change.revision > this.#published);
      this.#published = Math.max(this.#published, last);
      this.hub.publish(fresh);
    });
  }

  /** wake reads and publishes whatever was committed since the last published change. */
  wake(notified?: number): void {
    // Unprompted wakes (the poll, readers waiting on the watch cache) share one queued catch-up.
    if (notified === undefined) {
      if (this.#wakeQueued) return;
      this.#wakeQueued = true;
    }
    void this.#mutex.run(async () => {
      if (notified === undefined) this.#wakeQueued = false;
      if (this.#closed) return;
      if (this.hub.size === 0) {
        // Nobody to tell: a subscriber that comes later reads its backlog from the table anyway.
        if (notified !== undefined) this.#published = Math.max(this.#published, notified);
        return;
      }
      if (notified !== undefined && (notified <= this.#published || (this.#committing !== undefined && notified <= this.#committing))) return;
      await this.#catchUp(undefined).catch((error: unknown) => this.#trouble(error));
    });
  }

  /**
   * reset tells the hub the store's state was replaced at `revision` (by this replica or,
   * through a notification, another), once; the feed goes on from there.
   */
  async reset(revision: number): Promise<void> {
    await this.#mutex.run(async () => this.#resetAt(revision));
  }

  #resetAt(revision: number): void {
    if (revision <= this.#resetSeen) return;
    this.#resetSeen = revision;
    this.#published = Math.max(this.#published, revision);
    this.hub.reset(revision);
  }

  /** close stops listening and polling. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#poll) clearInterval(this.#poll);
    if (this.#retry) clearTimeout(this.#retry);
    const listener = this.#listener;
    this.#listener = undefined;
    this.#listening = false;
    await this.#mutex.run(async () => undefined);
    await listener?.end().catch(() => undefined);
  }

  /** catchUp publishes changes after the last published one, up to `upTo` or the newest. */
  async #catchUp(upTo: number | undefined): Promise<void> {
    for (;;) {
      const want = upTo === undefined ? PAGE : Math.min(PAGE, upTo - this.#published);
      if (want <= 0) return;
      let page: Change[];
      try {
        page = await this.#source.changesAfter(this.#published, want);
      } catch (error) {
        // Behind the compaction point (a long outage with nobody subscribed): subscribers that
        // attached since read their backlog from the table, so resume where the feed now starts.
        // The subscribers missed changes (or the state was replaced and its notification is
        // still on its way): they are told, as after a replacement.
        if (!(error instanceof CompactedError)) throw error;
        this.#trouble(error);
        this.#published = error.oldest;
        this.#resetAt(error.oldest);
        continue;
      }
      if (page.length === 0) return;
      this.#published = page[page.length - 1]!.revision;
      this.hub.publish(page);
    }
  }

  async #listen(): Promise<void> {
    const client = new pg.Client(this.#config);
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const payload = message.payload ?? '';
      if (payload.startsWith(RESET_PREFIX)) void this.reset(Number(payload.slice(RESET_PREFIX.length)));
      else this.wake(Number(payload));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#listener = client;
    this.#listening = true;
    this.#backoff = 100;
  }

  /** lost schedules re-establishing LISTEN, with exponential backoff, and a catch-up after it. */
  #lost(client: pg.Client, error: unknown): void {
    if (this.#closed || this.#listener !== client) return;
    this.#listener = undefined;
    this.#listening = false;
    void client.end().catch(() => undefined);
    this.#trouble(error);
    const retry = (): void => {
      this.#retry = setTimeout(() => {
        this.#listen().then(
          () => this.wake(),
          (failure: unknown) => {
            this.#trouble(failure);
            this.#backoff = Math.min(this.#backoff * 2, this.#options.maxBackoffMs ?? 5_000);
            if (!this.#closed) retry();
          },
        );
      }, this.#backoff);
      this.#retry.unref();
    };
    retry();
  }

  #trouble(error: unknown): void {
    this.#options.onTrouble?.(`change feed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
