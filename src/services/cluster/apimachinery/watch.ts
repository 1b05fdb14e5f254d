/**
 * Watch: a chunked stream of newline-delimited `{"type","object"}` events built on the store's
 * change feed (which hands every committed change to each subscriber exactly once, in order,
 * so a watcher loses nothing across a write burst). Implements the real semantics: initial
 * ADDED events, resume from a resourceVersion, in-stream 410 for compacted ones, bookmarks,
 * the `k8s.io/initial-events-end` bookmark, timeouts, and selectors applied per watcher
 * (an object leaving the selection is DELETED for that watcher).
 */
import { CompactedError, type Change, type StoredRecord, type Subscription } from '../../../store/index.ts';
import type { KubeObject } from './object-meta.ts';
import { parseResourceVersion, type GenericRegistry, type RequestScope } from './registry.ts';
import { listAtRevision } from './snapshot.ts';
import { expired, statusBody } from './status.ts';
import { apiVersionOf } from './strategy.ts';
import type { WatchQuery } from './query-options.ts';

/** WatchEventType is the `type` of a watch event. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** WatchSink is where a watch writes: one event at a time, then the end. */
export interface WatchSink {
  /** send writes one event made for this watcher alone (initial state, bookmarks, a Status for ERROR). */
  send(type: WatchEventType, object: KubeObject | Record<string, unknown>): void;
  /**
   * sendChange writes one event from the store's change feed. `change` is the same object for
   * every watcher, so a sink may encode it once for all of them; `present` builds its wire
   * object (only called when the sink needs it).
   */
  sendChange(type: WatchEventType, change: Change, present: (change: Change) => KubeObject): void;
  end(): void;
  /** onClose registers what to do when the client goes away (or stops reading: see WatchSettings.backlogLimitBytes). */
  onClose(listener: () => void): void;
  /**
   * follow, where the sink can share its lines with other watchers (watch-channels.ts), follows
   * the changes after `start` of the keys under `prefix` through a channel shared by every
   * watcher sent the same lines, instead of a subscription of its own; `reset` ends the watch
   * when the store's state is replaced. Resolves with the subscription (close leaves), or
   * undefined when the sink cannot (then the watch subscribes itself and calls sendChange).
   */
  follow?(start: number, prefix: string, reset: (revision: number) => void): Promise<Subscription | undefined>;
  /**
   * ready resolves once what was sent so far has mostly reached the client: the initial events
   * are sent a page at a time, each after the client has taken most of the last (a large initial
   * list to a slow client waits for it instead of piling up in memory).
   */
  ready(): Promise<void>;
}

/** WatchSettings tune watches for the whole family. */
export interface WatchSettings {
  /** How often a watcher that asked for bookmarks gets one (the real watch cache: about a minute). */
  readonly bookmarkIntervalMs: number;
  /** The timeout of a watch that named none, in seconds (the real server: 1800–3600, random). */
  readonly defaultTimeoutSeconds: (random: number) => number;
  /**
   * How many bytes a watch's connection may hold unsent before a new event ends the watch. The
   * real watch cache does the same to a watcher whose buffer stays full ("Forcing watcher close
   * due to unresponsiveness"): the stream ends cleanly, and clients such as client-go's reflector
   * watch again from the last resourceVersion they saw. Without it, a client that stops reading
   * would make the server hold every later event for it, without bound.
   */
  readonly backlogLimitBytes: number;
}

/** DEFAULT_WATCH_SETTINGS match the real server. */
export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  defaultTimeoutSeconds: (random) => 1800 + Math.floor(random * 1800),
  // About 10,000 typical events, on top of what the kernel's socket buffers hold.
  backlogLimitBytes: 8 * 1024 * 1024,
};

/** ActiveWatches tracks open watches so the service can end them on shutdown. */
export class ActiveWatches {
  readonly #open = new Set<() => void>();

  /** add registers a watch's stop function until it ends. */
  add(stop: () => void): () => void {
    this.#open.add(stop);
    return () => this.#open.delete(stop);
  }

  /** closeAll ends every open watch cleanly. */
  closeAll(): void {
    for (const stop of [...this.#open]) stop();
  }

  /** size is the number of open watches. */
  get size(): number {
    return this.#open.size;
  }
}

/** serveWatch runs one watch until its timeout, the client leaving, or the service closing. */
export async function serveWatch(
  registry: GenericRegistry,
  scope: RequestScope,
  query: WatchQuery,
  sink: WatchSink,
  options: {
    readonly settings: WatchSettings;
    readonly active: ActiveWatches;
    readonly random: number;
    /**
     * ending is an injected fault's end for this watch, once its initial events are out: `gone`
     * is the in-stream 410 Expired the watch cache sends for a resourceVersion it no longer has
     * (the informer relists), `close` ends the stream early (the client watches again).
     */
    readonly ending?: 'gone' | 'close';
  },
): Promise<void> {
  const { view } = scope;
  const store = registry.store;
  const prefix = view.strategy.namespaced && scope.namespace !== undefined ? `${scope.namespace}/` : '';
  const filtering = !query.labelSelector.empty || !query.fieldSelector.empty;
  const selected = (value: KubeObject): boolean =>
    (query.labelSelector.empty || query.labelSelector.matches(value.metadata.labels)) &&
    (query.fieldSelector.empty || query.fieldSelector.matches(view.selectableFields(value)));
  const rv = query.resourceVersion;
  const fromState = query.sendInitialEvents === true || (query.sendInitialEvents === undefined && (rv === undefined || rv === '0'));
  let start: number;
  if (rv !== undefined && rv !== '0') {
    const requested = parseResourceVersion(rv);
    const current = await registry.waitForRevision(requested);
    // Reached by the store, so a safe integer.
    start = fromState ? current : Number(requested);
  } else {
    start = await store.currentRevision();
  }

  let closed = false;
  let subscription: Subscription | undefined;
  let timeout: NodeJS.Timeout | undefined;
  let bookmarks: NodeJS.Timeout | undefined;
  let lastBookmark = start;
  // Keys currently inside this watcher's selection; only needed when selectors can drop objects.
  const inSelection = new Set<string>();
  const stop = (): void => {
    if (closed) return;
    closed = true;
    subscription?.close();
    if (timeout !== undefined) clearTimeout(timeout);
    if (bookmarks !== undefined) clearInterval(bookmarks);
    unregister();
    sink.end();
  };
  const unregister = options.active.add(stop);
  sink.onClose(stop);

  const present = (record: StoredRecord): KubeObject => registry.present(scope, record);
  const bookmark = (revision: number, annotations?: Record<string, string>): void => {
    sink.send('BOOKMARK', {
      kind: view.kind,
      apiVersion: apiVersionOf({ group: scope.group, version: view.version }),
      metadata: { resourceVersion: String(revision), creationTimestamp: null, ...(annotations === undefined ? {} : { annotations }) },
    });
    lastBookmark = revision;
  };
  const tooOld = (requested: number, oldest: number): void => {
    sink.send('ERROR', statusBody(expired(`too old resource version: ${requested} (${oldest})`)));
    stop();
  };

  try {
    if (fromState || filtering) {
      // The state at `start`: sent as ADDED when asked for, otherwise only remembered for selectors.
      let after: string | undefined;
      for (;;) {
        const page = await listAtRevision(store, view.storeKind, {
          prefix,
          ...(after === undefined ? {} : { after }),
          limit: 1000,
          revision: start,
          filter: (record) => selected(record.value as KubeObject),
        });
        for (const record of page.records) {
          if (filtering) inSelection.add(record.key);
          if (fromState && !closed) sink.send('ADDED', present(record));
        }
        if (fromState && !closed) await sink.ready();
        if (!page.more || page.records.length === 0 || closed) break;
        after = page.records[page.records.length - 1]!.key.slice(prefix.length);
      }
      if (fromState && query.sendInitialEvents === true && query.allowWatchBookmarks && !closed) bookmark(start, { 'k8s.io/initial-events-end': 'true' });
    }
  } catch (error) {
    if (isCompactedLike(error)) {
      tooOld(start, await store.oldestResumableRevision());
      return;
    }
    throw error;
  }
  if (closed) return;
  if (options.ending === 'gone') {
    tooOld(start, start + 1);
    return;
  }
  if (options.ending === 'close') {
    stop();
    return;
  }

  // A Change carries every field of a StoredRecord, so it is presented as it is.
  const presentChange = (change: Change): KubeObject => registry.present(scope, change);
  const onChange = (change: Change): void => {
    if (closed || !change.key.startsWith(prefix)) return;
    if (!filtering) {
      sink.sendChange(change.type === 'created' ? 'ADDED' : change.type === 'updated' ? 'MODIFIED' : 'DELETED', change, presentChange);
      return;
    }
    const was = inSelection.has(change.key);
    const now = change.type !== 'deleted' && selected(change.value as KubeObject);
    if (now) {
      inSelection.add(change.key);
      sink.sendChange(was ? 'MODIFIED' : 'ADDED', change, presentChange);
    } else if (was) {
      inSelection.delete(change.key);
      sink.sendChange('DELETED', change, presentChange);
    }
  };
  try {
    // A replaced state (a snapshot restored, a reset) ends the watch with 410 Gone, as an etcd restore does: the informer relists.
    // Watchers without selectors share one subscription and one encoding per change (watch-channels.ts).
    const followed = filtering || sink.follow === undefined ? undefined : await sink.follow(start, prefix, (revision) => tooOld(start, revision));
    subscription = followed ?? (await store.subscribe(start, onChange, { kinds: [view.storeKind], onReset: (revision) => tooOld(start, revision) }));
  } catch (error) {
    if (error instanceof CompactedError) {
      tooOld(start, error.oldest);
      return;
    }
    throw error;
  }
  if (closed) {
    subscription.close();
    return;
  }
  const seconds = query.timeoutSeconds ?? options.settings.defaultTimeoutSeconds(options.random);
  timeout = setTimeout(stop, seconds * 1000);
  if (query.allowWatchBookmarks) {
    // The store publishes a commit in the same tick it advances its revision, so every change
    // up to the current revision has reached this watcher: a bookmark there is safe to resume from.
    bookmarks = setInterval(() => {
      void store.currentRevision().then((current) => {
        if (!closed && current > lastBookmark) bookmark(current);
      }, stop);
    }, options.settings.bookmarkIntervalMs);
  }
}

function isCompactedLike(error: unknown): boolean {
  return error instanceof Error && error.name === 'RevisionCompactedError';
}
