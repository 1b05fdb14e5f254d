import type { Change, ChangeListener, Subscription } from './store.ts';

/**
 * ChangeHub fans committed changes out to live subscribers. Backends call `publish` after each
 * commit, in revision order; subscribers filtered by kind see only their kinds.
 */
export class ChangeHub {
  readonly #listeners = new Set<{ listener: ChangeListener; kinds: ReadonlySet<string> | undefined }>();

  /** subscribe attaches a listener until the returned subscription is closed. */
  subscribe(listener: ChangeListener, kinds?: readonly string[]): Subscription {
    const entry = { listener, kinds: kinds === undefined ? undefined : new Set(kinds) };
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
  kinds: readonly string[] | undefined,
  readBacklog: (after: number) => Promise<Change[]>,
): Promise<Subscription> {
  // Attach first and buffer, so nothing committed while the backlog is read is lost.
  let buffering = true;
  const buffered: Change[] = [];
  let last = fromRevision;
  const deliver = (change: Change): void => {
    if (change.revision <= last) return;
    last = change.revision;
    listener(change);
  };
  const subscription = hub.subscribe((change) => {
    if (buffering) buffered.push(change);
    else deliver(change);
  }, kinds);
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
  for (const change of buffered) deliver(change);
  return subscription;
}
