/**
 * The HTTP side of a watch: encodes each event in the negotiated form and streams it as one
 * newline-terminated JSON line of a chunked response. A change from the feed is encoded once per
 * (view, request group, form, event type) and the same Buffer goes to every watcher that gets
 * it; writes are coalesced per turn across all watchers (`watch-writes.ts`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Change } from '../../../store/index.ts';
import { contentTypeOf, type OutputForm } from './content-negotiation.ts';
import type { KubeObject } from './object-meta.ts';
import { single, type parseListQuery, type Query } from './query-options.ts';
import type { RequestScope } from './registry.ts';
import type { HandlerContext } from './resource-handlers.ts';
import { parseIncludeObject, partialObject, toTable } from './table.ts';
import { serveWatch, type WatchEventType } from './watch.ts';
import { WatchOutput, WatchWrites } from './watch-writes.ts';

/** ENCODED caches encoded watch lines per store change (weakly: they go with the change). */
const ENCODED = new WeakMap<Change, Map<string, Buffer>>();
const WRITES = new WatchWrites();

/** startWatch answers a watch request: headers at once, then events until serveWatch ends it. */
export async function startWatch(context: HandlerContext, scope: RequestScope, query: ReturnType<typeof parseListQuery>, form: OutputForm, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { view } = scope;
  // Errors found before the stream starts are ordinary responses; serveWatch throws those first.
  let started = false;
  let headersSent = false;
  const raw = reply.raw;
  const output = new WatchOutput(raw, WRITES);
  const include = form.kind === 'table' ? parseIncludeObject(single(query as unknown as Query, 'includeObject')) : 'Metadata';
  const encode = (type: WatchEventType, object: KubeObject | Record<string, unknown>): Buffer => {
    if (type === 'ERROR' || type === 'BOOKMARK' || form.kind === 'object') return line({ type, object });
    const kube = object as KubeObject;
    if (form.kind === 'partial') return line({ type, object: partialObject(kube, form.version) });
    const now = context.registry.clock.now();
    const table = toTable(view, [{ stored: view.toInternal(structuredClone(kube)), object: kube }], { resourceVersion: kube.metadata.resourceVersion ?? '' }, { now, version: form.version, include, noHeaders: headersSent });
    headersSent = true;
    return line({ type, object: table });
  };
  // The cache keys of this watcher, one per event type. Tables are encoded per watcher (their
  // headers depend on what that watcher was sent before).
  const shareable = form.kind !== 'table';
  const base = `${view.storeKind}|${view.group}/${view.version}|${scope.group}|${form.kind}|${form.kind === 'object' ? '' : form.version}|`;
  const keys: Record<WatchEventType, string> = { ADDED: `${base}ADDED`, MODIFIED: `${base}MODIFIED`, DELETED: `${base}DELETED`, BOOKMARK: `${base}BOOKMARK`, ERROR: `${base}ERROR` };
  const begin = (): void => {
    if (started) return;
    started = true;
    reply.hijack();
    raw.writeHead(200, { 'content-type': contentTypeOf(form, false), 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
    raw.flushHeaders();
  };
  let ended = false;
  await serveWatch(
    context.registry,
    scope,
    query,
    {
      send(type, object) {
        if (ended) return;
        begin();
        output.push(encode(type, object));
      },
      sendChange(type, change, present) {
        if (ended) return;
        begin();
        if (!shareable) {
          output.push(encode(type, present(change)));
          return;
        }
        let byKey = ENCODED.get(change);
        if (byKey === undefined) ENCODED.set(change, (byKey = new Map()));
        const key = keys[type];
        let encoded = byKey.get(key);
        if (encoded === undefined) byKey.set(key, (encoded = encode(type, present(change))));
        output.push(encoded);
      },
      end() {
        if (ended) return;
        ended = true;
        begin();
        output.flush();
        raw.end();
      },
      onClose(listener) {
        request.raw.on('close', listener);
        raw.on('close', listener);
      },
    },
    { settings: context.watch.settings, active: context.watch.active, random: context.random() },
  );
  // Headers go out at once, even before the first event, so clients see the watch is open.
  if (!ended) begin();
}

function line(event: { readonly type: WatchEventType; readonly object: unknown }): Buffer {
  return Buffer.from(`${JSON.stringify(event)}\n`);
}
