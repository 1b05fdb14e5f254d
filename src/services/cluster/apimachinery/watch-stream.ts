/**
 * The HTTP side of a watch: encodes each event in the negotiated form and streams it as one
 * newline-terminated JSON line of a chunked response. A change from the feed is encoded once per
 * (view, request group, form, event type) and the same Buffer goes to every watcher that gets
 * it; writes are coalesced per turn across all watchers (`watch-writes.ts`).
 *
 * The shared encodings live in one slot per (view, request group, form, event type), holding the
 * last change encoded there. The feed hands each change to every watcher before the next change,
 * so the slot is what the other watchers of that change find; a watcher replaying older changes
 * only encodes them again. Found by identity, the encoding costs each watcher a comparison. With
 * 1,000 watchers, handing a change to each was about a sixth of the server's CPU, and finding
 * the encoding this way instead of through a WeakMap by change and a Map by key took about 5%
 * off the server's CPU per delivered pair (bench/cluster-watch-fanout.ts).
 */
import { escapeLikeGo } from './go-json.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Change } from '../../../store/index.ts';
import { faultOf } from '../../../core/faults/applied.ts';
import { contentTypeOf, type OutputForm } from './content-negotiation.ts';
import type { KubeObject } from './object-meta.ts';
import { single, type parseListQuery, type Query } from './query-options.ts';
import type { RequestScope } from './registry.ts';
import type { HandlerContext } from './handler-context.ts';
import { parseIncludeObject, partialObject, toTable } from './table.ts';
import { serveWatch, type WatchEventType } from './watch.ts';
import { WatchOutput, WatchWrites } from './watch-writes.ts';
import { type ChannelMember, type WatchChannel, WatchChannels } from './watch-channels.ts';

/** EncodedSlot is the last change encoded for one (view, request group, form, event type). */
interface EncodedSlot {
  change: Change | undefined;
  encoded: Buffer;
}

/** SLOTS holds one slot per key; the keys come from a fixed set of views, groups and forms. */
const SLOTS = new Map<string, EncodedSlot>();
const WRITES = new WatchWrites();
const CHANNELS = new WatchChannels(WRITES);

function slotOf(key: string): EncodedSlot {
  let slot = SLOTS.get(key);
  if (slot === undefined) {
    slot = { change: undefined, encoded: Buffer.alloc(0) };
    SLOTS.set(key, slot);
  }
  return slot;
}

/** startWatch answers a watch request: headers at once, then events until serveWatch ends it. */
export async function startWatch(
  context: HandlerContext,
  scope: RequestScope,
  query: ReturnType<typeof parseListQuery>,
  form: OutputForm,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { view } = scope;
  // Errors found before the stream starts are ordinary responses; serveWatch throws those first.
  let started = false;
  let headersSent = false;
  const raw = reply.raw;
  const output = new WatchOutput(raw, WRITES);
  // includeObject is a TableOptions parameter, not a list option: it is read from the request's own query.
  const include = form.kind === 'table' ? parseIncludeObject(single((request.query ?? {}) as Query, 'includeObject')) : 'Metadata';
  const encode = (type: WatchEventType, object: KubeObject | Record<string, unknown>): Buffer => {
    if (type === 'ERROR' || type === 'BOOKMARK' || form.kind === 'object') return line({ type, object });
    const kube = object as KubeObject;
    if (form.kind === 'partial') return line({ type, object: partialObject(kube, form.version) });
    const now = context.registry.clock.now();
    const table = toTable(
      view,
      [{ stored: view.toInternal(structuredClone(kube)), object: kube }],
      { resourceVersion: kube.metadata.resourceVersion ?? '' },
      { now, version: form.version, include, noHeaders: headersSent },
    );
    headersSent = true;
    return line({ type, object: table });
  };
  // The cache keys of this watcher, one per event type. Tables are encoded per watcher (their
  // headers depend on what that watcher was sent before).
  const shareable = form.kind !== 'table';
  const base = `${view.storeKind}|${view.group}/${view.version}|${scope.group}|${form.kind}|${form.kind === 'object' ? '' : form.version}|`;
  const slots: Record<WatchEventType, EncodedSlot> = {
    ADDED: slotOf(`${base}ADDED`),
    MODIFIED: slotOf(`${base}MODIFIED`),
    DELETED: slotOf(`${base}DELETED`),
    BOOKMARK: slotOf(`${base}BOOKMARK`),
    ERROR: slotOf(`${base}ERROR`),
  };
  const begin = (): void => {
    if (started) return;
    started = true;
    reply.hijack();
    // A deprecated version's Warning (set by serveResource) goes out with the stream's head too.
    const warning = reply.getHeader('warning');
    const head: Record<string, string | string[]> = {
      'content-type': contentTypeOf(form, false),
      'cache-control': 'no-cache, private',
      'transfer-encoding': 'chunked',
    };
    if (typeof warning === 'string' || Array.isArray(warning)) head['warning'] = warning;
    raw.writeHead(200, head);
    raw.flushHeaders();
  };
  let ended = false;
  const closeListeners: (() => void)[] = [];
  const backlogLimit = context.watch.settings.backlogLimitBytes;
  // Set once the watch follows a channel shared with other watchers (WatchSink.follow).
  let channel: { readonly shared: WatchChannel; readonly member: ChannelMember } | undefined;
  // A client that has left this much unread gets no more events: the watch ends, as the real
  // watch cache ends an unresponsive watcher's (WatchSettings.backlogLimitBytes). The initial
  // events never get here: they wait for the client instead (serveWatch, WatchSink.ready).
  const deliver = (encoded: Buffer): void => {
    if (output.backlog() > backlogLimit) {
      for (const listener of closeListeners) listener();
      return;
    }
    output.push(encoded);
  };
  await serveWatch(
    context.registry,
    scope,
    query,
    {
      send(type, object) {
        if (ended) return;
        begin();
        // After the shared lines it was already sent, in order.
        channel?.shared.settle(channel.member);
        deliver(encode(type, object));
      },
      async follow(start, prefix, reset) {
        // Tables are encoded per watcher (their headers depend on what it was sent before).
        if (!shareable) return undefined;
        begin();
        const member: ChannelMember = {
          output,
          close: () => {
            for (const listener of closeListeners) listener();
          },
          reset,
        };
        const source = {
          store: context.registry.store,
          storeKind: view.storeKind,
          prefix,
          encode: (type: WatchEventType, change: Change) => encode(type, context.registry.present(scope, change)),
          backlogLimit,
        };
        const followed = await CHANNELS.follow(`${base}${prefix}`, source, member, start);
        if (followed === undefined) return undefined;
        channel = { shared: followed.channel, member };
        return followed.subscription;
      },
      sendChange(type, change, present) {
        if (ended) return;
        begin();
        if (!shareable) {
          deliver(encode(type, present(change)));
          return;
        }
        const slot = slots[type];
        if (slot.change !== change) {
          slot.encoded = encode(type, present(change));
          slot.change = change;
        }
        deliver(slot.encoded);
      },
      end() {
        if (ended) return;
        ended = true;
        begin();
        output.flush();
        raw.end();
      },
      onClose(listener) {
        closeListeners.push(listener);
        request.raw.on('close', listener);
        raw.on('close', listener);
      },
      ready() {
        return output.ready(backlogLimit / 2);
      },
    },
    { settings: context.watch.settings, active: context.watch.active, random: context.random(), ...injectedEnding(request) },
  );
  // Headers go out at once, even before the first event, so clients see the watch is open.
  if (!ended) begin();
}

/** line is one event as the watch encoder writes it: json.Encoder's text, escaped as Go does, one per line. */
function line(event: { readonly type: WatchEventType; readonly object: unknown }): Buffer {
  return Buffer.from(`${escapeLikeGo(JSON.stringify(event))}\n`);
}

/** injectedEnding is how a fault rule that fired for this watch wants it to end (`"watch": "gone" | "close"`), if one did. */
function injectedEnding(request: FastifyRequest): { readonly ending?: 'gone' | 'close' } {
  const watch = faultOf(request)?.watch;
  return watch === undefined ? {} : { ending: watch };
}
