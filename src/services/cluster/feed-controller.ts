import type { Change, Store, Subscription } from '../../store/index.ts';
import { ControllerQueue } from './controller-queue.ts';

/**
 * FeedController is the life of a change-feed controller (kube-controller-manager's informer plus
 * work queue, as the garbage collector and the endpoints controllers run here): attach to the
 * change feed at the store's revision, relist what it follows, queue work from each change, and
 * start again from a relist when the feed is reset (a restore, a reset). `idle()` waits until the
 * relist is done, no work waits and every change written so far has been seen.
 */
export abstract class FeedController<K> {
  protected readonly queue = new ControllerQueue<K>((key) => this.handle(key));
  #subscription: Subscription | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  #revisionSeen = 0;

  constructor(readonly store: Store) {}

  /** handle does the work of one key. */
  protected abstract handle(key: K): Promise<void>;
  /** observe takes one change of any kind, in feed order (the revision seen is counted already). */
  protected abstract observe(change: Change): void;
  /** relist reads what the controller follows and queues its work, once the feed is attached (changes meanwhile reach observe). */
  protected abstract relist(): Promise<void>;
  /** forget drops what the controller learned from the last feed, before it attaches again. */
  protected forget(): void {}

  /** lastError is the last failure of a piece of work (a later change retries it), for diagnostics. */
  get lastError(): unknown {
    return this.queue.lastError;
  }

  /** following is true once the controller is attached to the feed. */
  protected get following(): boolean {
    return this.#subscription !== undefined;
  }

  /** stopped is true once stop() was called. */
  protected get stopped(): boolean {
    return this.#stopped;
  }

  /** start attaches to the change feed and relists (in the background; idle() waits for it). */
  start(): Promise<void> {
    this.#starting = this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** stop detaches from the change feed and waits for the work in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#subscription?.close();
    await this.#starting?.catch(() => undefined);
    await this.queue.stop();
  }

  /** idle resolves once the relist is done, no work waits and the feed has brought every change written so far. */
  async idle(): Promise<void> {
    for (;;) {
      await this.#starting;
      await this.queue.idle();
      // A write of the work just done may still be on its way through the feed.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#starting === undefined && this.queue.length === 0 && (await this.store.currentRevision()) <= this.#revisionSeen) return;
    }
  }

  async #start(): Promise<void> {
    this.#stopped = false;
    this.forget();
    const from = await this.store.currentRevision();
    this.#revisionSeen = from;
    // A replaced state (a restore, a reset) ends the subscription: attach again and relist.
    const onReset = (): void => {
      if (!this.#stopped) void this.start().catch((error: unknown) => (this.queue.lastError = error));
    };
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        // Every kind's changes move the revision seen (idle() compares it with the store's).
        this.#revisionSeen = Math.max(this.#revisionSeen, change.revision);
        this.observe(change);
      },
      { onReset },
    );
    await this.relist();
  }
}
