import type { Change, ChangeListener, SubscribeOptions, Subscription } from './store.ts';

interface Entry {
  readonly listener: ChangeListener;
  readonly kinds: ReadonlySet<string> | undefined;
  readonly onReset: ((revision: number) => void) | undefined;
}

/**
 * ChangeHub fans committed changes out to live subscribers. Backends call `publish` after each
 * commit, in revision order; subscribers filtered by kind see only their kinds. `reset` tells
 * them the store's state was replaced (see SubscribeOptions.onReset).
 */
export class ChangeHub {
  readonly #listeners = new Set<Entry>();

  /** subscribe attaches a listener until the returned subscription is closed. */
  subscribe(listener: ChangeListener, kinds?: readonly string[], onReset?: (revision: number) => void): Subscription {
    const entry: Entry = { listener, kinds: kinds === undefined ? undefined : new Set(kinds), onReset };
    this.#listeners.add(entry);
    return { close: () => void this.#listeners.delete(entry) };
  }

  /** publish delivers changes to every interested listener; a throwing listener is detached. */
  publish(changes: readonly Change[]): void {
    if (this.#listeners.size === 0) return;
    for (const change of changes) {
      for (const entry of this.#listeners) {
        if (entry.kinds !== undefined && !entry.kinds.has(change.kind)) continue;
        try {
          entry.listener(change);
        } catch {
          this.#listeners.delete(entry);
        }
      }
    }
  }

  /**
   * reset ends every subscription that asked to hear of a replaced state, calling its onReset
   * with the store's new revision; the others stay attached and see the changes after it.
   */
  reset(revision: number): void {
    for (const entry of [...this.#listeners]) {
      if (entry.onReset === undefined) continue;
      this.#listeners.delete(entry);
      try {
        entry.onReset(revision);
      } catch {
        // A failing subscriber must not keep the others from hearing it.
      }
    }
  }

  /** size is the number of live subscribers. */
  get size(): number {
    return this.#listeners.size;
  }
}

/** subscribeWithBacklog replays the feed after `fromRevision`, then switches to live changes without gaps or repeats. */
export async function subscribeWithBacklog(
  hub: ChangeHub,
  fromRevision: number,
  listener: ChangeListener,
  options: SubscribeOptions,
  readBacklog: (after: number) => Promise<Change[]>,
): Promise<Subscription> {
  // Attach first and buffer, so nothing committed while the backlog is read is lost.
  let buffering = true;
  const buffered: Change[] = [];
  let resetTo: number | undefined;
  let last = fromRevision;
  const deliver = (change: Change): void => {
    if (change.revision <= last) return;
    last = change.revision;
    listener(change);
  };
  const onReset = options.onReset;
  const subscription = hub.subscribe(
    (change) => {
      if (buffering) buffered.push(change);
      else deliver(change);
    },
    options.kinds,
    onReset === undefined
      ? undefined
      : (revision) => {
          if (buffering) resetTo = revision;
          else onReset(revision);
        },
  );
  try {
    for (;;) {
      const page = await readBacklog(last);
      if (page.length === 0) break;
      for (const change of page) deliver(change);
    }
  } catch (error) {
    subscription.close();
    throw error;
  }
  buffering = false;
  if (resetTo !== undefined) {
    // The state was replaced while the backlog was read: what was delivered no longer leads anywhere.
    onReset!(resetTo);
    return subscription;
  }
  for (const change of buffered) deliver(change);
  return subscription;
}
