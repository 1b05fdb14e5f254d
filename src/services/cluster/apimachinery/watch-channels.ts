/**
 * Watch channels: one change-feed subscription and one encoding per change for every watcher
 * that is sent the same lines — watchers of one resource in one namespace (or all), without
 * selectors, in the same output form — as the apiserver's watch cache fans one event out to its
 * watchers. A change then costs one listener call, one encoding and one array push whatever the
 * number of watchers, and each flush writes the same framed chunk to every member's socket
 * (watch-writes.ts). With a subscription per watcher, 10,000 watchers made every change 10,000
 * listener calls and pushes, which alone took more than the CPU at 1,000 changes a second.
 *
 * A watcher joins at its own starting revision. The channel remembers the revision of the last
 * change it saw and keeps its most recent lines: a watcher starting behind that revision is sent
 * the lines it missed from there (its own lines, before the shared ones), one starting ahead of
 * it skips the changes it already has (a store whose feed lags its revision, PostgreSQL's). One
 * starting further back than the kept lines cannot join, and follows the feed on its own.
 */
import type { Change, Store, Subscription } from '../../../store/index.ts';
import type { WatchEventType } from './watch.ts';
import { frameChunk, type SharedLines, type WatchOutput, type WatchWrites } from './watch-writes.ts';

/** RECENT_LINES is how many of its latest lines a channel keeps for watchers joining behind it. */
const RECENT_LINES = 1024;

/** ChannelMember is one watcher of a channel. */
export interface ChannelMember {
  readonly output: WatchOutput;
  /** close ends the watch (a client that stopped reading, past the backlog limit). */
  readonly close: () => void;
  /** reset ends the watch with 410 Gone: the store's state was replaced (a restore, a reset). */
  readonly reset: (revision: number) => void;
}

/** ChannelSource is what a channel follows and how it encodes a change, the same for every member. */
export interface ChannelSource {
  readonly store: Store;
  readonly storeKind: string;
  /** Only keys starting with this (a namespace's `ns/`, or every key). */
  readonly prefix: string;
  /** encode makes the line (ending in a newline) every member is sent for a change. */
  readonly encode: (type: WatchEventType, change: Change) => Buffer;
  /** backlogLimit is how many unsent bytes a member's connection may hold before it is ended. */
  readonly backlogLimit: number;
}

interface Member {
  readonly member: ChannelMember;
  /** Changes up to this revision are not this member's (it started there). */
  after: number;
  /** Where this member's lines start in the channel's batch (it joined after the lines before). */
  from: number;
}

/** WatchChannel is one shared subscription and the watchers following it. */
export class WatchChannel implements SharedLines {
  readonly #live = new Set<Member>();
  /** Members that started ahead of the last change seen: they take changes after their start. */
  #waiting: Member[] = [];
  readonly #byMember = new Map<ChannelMember, Member>();
  /** The lines since the last flush, the same for every live member (from its `from`). */
  #batch: Buffer[] = [];
  #queued = false;
  /** The revision of the last change seen (or where the subscription started). */
  #last: number;
  /** The latest lines with their revisions, oldest first; every change after `#coveredFrom` is among them. */
  readonly #recent: { readonly revision: number; readonly line: Buffer }[] = [];
  #coveredFrom: number;
  #subscription: Subscription | undefined;
  #closed = false;
  /** Settles when the subscription is in place (or failed: the joiners' error). */
  readonly subscribed: Promise<void>;

  constructor(
    readonly source: ChannelSource,
    /** Where the channel's subscription starts. */
    readonly start: number,
    private readonly writes: WatchWrites,
    private readonly onEmpty: () => void,
  ) {
    this.#last = start;
    this.#coveredFrom = start;
    this.subscribed = source.store
      .subscribe(start, this.#onChange, { kinds: [source.storeKind], onReset: (revision) => this.#reset(revision) })
      .then((subscription) => {
        if (this.#closed) subscription.close();
        else this.#subscription = subscription;
      });
    // A failed subscription fails every joiner (they await it); the channel is done.
    this.subscribed.catch(() => this.#close());
  }

  /**
   * join adds a watcher starting at `start` (it takes changes after it) and returns a
   * Subscription whose close leaves the channel, or undefined when the channel no longer has
   * the lines it would need to catch up (the caller follows the feed itself).
   */
  join(member: ChannelMember, start: number): Subscription | undefined {
    if (this.#closed) return undefined;
    const joined: Member = { member, after: start, from: this.#batch.length };
    if (start < this.#last) {
      if (start < this.#coveredFrom) return undefined;
      // Its own copy of the lines it missed, before any shared ones.
      for (const { revision, line } of this.#recent) if (revision > start) member.output.push(line);
      this.#live.add(joined);
    } else if (start > this.#last) {
      this.#waiting.push(joined);
    } else {
      this.#live.add(joined);
    }
    this.#byMember.set(member, joined);
    // Leaving, it keeps the lines it was already sent (a watch ending still writes them).
    return {
      close: () => {
        this.settle(member);
        this.#leave(member);
      },
    };
  }

  /**
   * settle moves the shared lines a member has pending into its own queue, so a line sent to it
   * alone now (a bookmark, an error) goes out after them, in the order it was sent.
   */
  settle(member: ChannelMember): void {
    const joined = this.#byMember.get(member);
    if (joined === undefined || !this.#live.has(joined)) return;
    for (let i = joined.from; i < this.#batch.length; i++) member.output.push(this.#batch[i]!);
    joined.from = this.#batch.length;
  }

  /** size is how many watchers follow the channel. */
  get size(): number {
    return this.#byMember.size;
  }

  readonly #onChange = (change: Change): void => {
    const revision = change.revision;
    this.#last = revision;
    if (!change.key.startsWith(this.source.prefix)) return;
    if (this.#waiting.length > 0) {
      const still: Member[] = [];
      for (const waiting of this.#waiting) {
        if (waiting.after >= revision) still.push(waiting);
        else {
          waiting.from = this.#batch.length;
          this.#live.add(waiting);
        }
      }
      this.#waiting = still;
    }
    const line = this.source.encode(change.type === 'created' ? 'ADDED' : change.type === 'updated' ? 'MODIFIED' : 'DELETED', change);
    this.#recent.push({ revision, line });
    if (this.#recent.length > RECENT_LINES) this.#coveredFrom = this.#recent.shift()!.revision;
    if (this.#live.size === 0) return;
    this.#batch.push(line);
    if (this.#queued) return;
    this.#queued = true;
    this.writes.queueShared(this);
  };

  /** flushShared writes the batch to every live member: one framed chunk shared by all that take all of it. */
  flushShared(): void {
    this.#queued = false;
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    let shared: { readonly chunk: Buffer; readonly dataStart: number } | undefined;
    const ending: ChannelMember[] = [];
    for (const joined of this.#live) {
      const from = joined.from;
      joined.from = 0;
      if (from >= batch.length) continue;
      const output = joined.member.output;
      if (output.raw.destroyed) continue;
      // A client that has left this much unread gets no more events (WatchSettings.backlogLimitBytes).
      if (output.backlog() > this.source.backlogLimit) {
        ending.push(joined.member);
        continue;
      }
      const own = output.take();
      if (own === undefined && from === 0) {
        shared ??= frameChunk(batch);
        output.writeChunk(shared.chunk, shared.dataStart);
      } else {
        const lines = own === undefined ? batch.slice(from) : [...own, ...batch.slice(from)];
        const framed = frameChunk(lines);
        output.writeChunk(framed.chunk, framed.dataStart);
      }
    }
    for (const member of ending) member.close();
  }

  #leave(member: ChannelMember): void {
    const joined = this.#byMember.get(member);
    if (joined === undefined) return;
    this.#byMember.delete(member);
    this.#live.delete(joined);
    this.#waiting = this.#waiting.filter((waiting) => waiting !== joined);
    if (this.#byMember.size === 0) this.#close();
  }

  #reset(revision: number): void {
    const members = [...this.#byMember.keys()];
    this.#close();
    for (const member of members) member.reset(revision);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#subscription?.close();
    this.#live.clear();
    this.#waiting = [];
    this.#byMember.clear();
    this.onEmpty();
  }
}

/** WatchChannels finds or opens the channel of a key (resource, namespace, output form). */
export class WatchChannels {
  readonly #open = new Map<string, WatchChannel>();

  constructor(private readonly writes: WatchWrites) {}

  /**
   * follow joins `member` to the channel of `key` from `start` (opening it there when there is
   * none) and resolves with its Subscription once the channel follows the feed; undefined when
   * it cannot join (see WatchChannel.join). Rejects as store.subscribe would (a compacted start).
   */
  async follow(
    key: string,
    source: ChannelSource,
    member: ChannelMember,
    start: number,
  ): Promise<{ channel: WatchChannel; subscription: Subscription } | undefined> {
    let channel = this.#open.get(key);
    if (channel === undefined) {
      const opened: WatchChannel = new WatchChannel(source, start, this.writes, () => {
        if (this.#open.get(key) === opened) this.#open.delete(key);
      });
      channel = opened;
      this.#open.set(key, channel);
    }
    const subscription = channel.join(member, start);
    if (subscription === undefined) return undefined;
    try {
      await channel.subscribed;
    } catch (error) {
      subscription.close();
      // The channel's own start failed (compacted): a watcher starting elsewhere follows the feed itself.
      if (start !== channel.start) return undefined;
      throw error;
    }
    return { channel, subscription };
  }

  /** size is how many channels are open. */
  get size(): number {
    return this.#open.size;
  }
}
