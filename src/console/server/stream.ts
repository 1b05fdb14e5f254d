/**
 * The console's one live stream (`GET /_fogbank/console/api/stream`, server-sent events): the
 * store's change feed (so a write on any replica sharing a PostgreSQL store reaches every
 * console) and this server's request journal, each event tagged with an id `REVISION.SEQUENCE`
 * (the last store revision and journal sequence delivered). A client that lost the stream
 * reconnects with that id in `Last-Event-ID` and gets exactly what it missed: the store replays
 * its feed from the revision, the journal side from this server's numbered ring. When the feed
 * cannot reach back that far (compacted, or the state was restored or reset) the client is told
 * to `reload`.
 *
 * Events carry what changed (kind, key, type, revision), not the values: the views fetch what they
 * show through the API, which checks what the principal may see; the stream itself only passes
 * on changes the principal may see (a mail user's own mailbox; everything for the admin).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JournalEntry, JournalReader } from '../../core/journal-view.ts';
import type { JournalRecord } from '../../core/journal.ts';
import type { Change, Store } from '../../store/store.ts';
import type { SignedIn } from './sessions.ts';
import { mayReadMailbox } from './mail-access.ts';

/** HEARTBEAT_MS is how often an idle stream sends a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;

/** StreamEvent is one event as the client reads it (`data:` JSON). */
export type StreamEvent =
  | { readonly type: 'change'; readonly kind: string; readonly key: string; readonly change: Change['type']; readonly revision: number }
  | { readonly type: 'request'; readonly seq: number; readonly entry: JournalEntry }
  | { readonly type: 'reload'; readonly reason: string };

/** parseEventId reads `REVISION.SEQUENCE`, or undefined for anything else. */
export function parseEventId(text: string | undefined): { revision: number; seq: number } | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text ?? '');
  if (match === null) return undefined;
  return { revision: Number(match[1]), seq: Number(match[2]) };
}

/** JournalRing numbers the journal's records as they are added and keeps the newest, for replay after a reconnect. */
export class JournalRing {
  readonly #slots: { readonly seq: number; readonly record: JournalRecord }[] = [];
  #seq = 0;
  readonly #listeners = new Set<(seq: number, record: JournalRecord) => void>();
  readonly stop: () => void;

  constructor(
    readonly reader: JournalReader,
    private readonly capacity = 1000,
  ) {
    this.stop = reader.journal.subscribe((record) => {
      const seq = ++this.#seq;
      this.#slots.push({ seq, record });
      if (this.#slots.length > this.capacity) this.#slots.shift();
      for (const listener of this.#listeners) listener(seq, record);
    });
  }

  /** last is the newest sequence number given. */
  get last(): number {
    return this.#seq;
  }

  /** since lists the kept records after `seq`; `complete` is false when some were already dropped. */
  since(seq: number): { records: { seq: number; record: JournalRecord }[]; complete: boolean } {
    const records = this.#slots.filter((slot) => slot.seq > seq);
    const oldest = this.#slots[0]?.seq ?? this.#seq + 1;
    return { records, complete: seq >= oldest - 1 || seq >= this.#seq };
  }

  /** listen hears each new record; the result stops it. */
  listen(listener: (seq: number, record: JournalRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** visibleChange says whether a principal may hear of a change: the admin all, anyone else its own mailbox's, when its token may read it (mail-access.ts). */
export function visibleChange(change: Change, signedIn: SignedIn, mailbox: string): boolean {
  if (signedIn.admin) return true;
  return change.kind.startsWith('mail.') && (change.key === mailbox || change.key.startsWith(`${mailbox}/`)) && mayReadMailbox(signedIn.principal, mailbox);
}

/** LiveStreams are the open console streams, ended when the server closes. */
export class LiveStreams {
  readonly #open = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly ring: JournalRing,
  ) {}

  /** follow answers one stream request until the client leaves or the server closes. */
  async follow(request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn): Promise<FastifyReply> {
    const header = request.headers['last-event-id'];
    const resume = parseEventId(typeof header === 'string' ? header : undefined);
    const mailbox = signedIn.principal.email.toLowerCase();
    await this.ring.reader.ready();
    let revision = resume?.revision ?? (await this.store.currentRevision());
    let seq = resume?.seq ?? this.ring.last;
    reply.hijack();
    const raw: ServerResponse = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    const send = (event: StreamEvent): void => {
      if (raw.writableEnded) return;
      raw.write(`id: ${revision}.${seq}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    // The id a fresh client resumes from, before any event arrives.
    raw.write(`retry: 1000\nid: ${revision}.${seq}\n: following fogbank\n\n`);
    const cleanups: (() => void)[] = [];
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      for (const cleanup of cleanups) cleanup();
      this.#open.delete(end);
      if (!raw.writableEnded) raw.end();
    };
    this.#open.add(end);
    raw.once('close', end);
    request.raw.once('close', end);

    if (signedIn.admin) {
      const onRecord = (at: number, record: JournalRecord): void => {
        if (at <= seq) return;
        seq = at;
        send({ type: 'request', seq: at, entry: this.ring.reader.entryOf(record) });
      };
      // Live first, then the backlog: the sequence check drops whatever both deliver.
      const backlog = this.ring.since(seq);
      cleanups.push(this.ring.listen(onRecord));
      if (!backlog.complete) send({ type: 'reload', reason: 'The request journal moved past this view: reloading.' });
      for (const { seq: at, record } of backlog.records) onRecord(at, record);
    }
    try {
      const subscription = await this.store.subscribe(
        revision,
        (change) => {
          if (change.revision <= revision) return;
          revision = change.revision;
          if (visibleChange(change, signedIn, mailbox))
            send({ type: 'change', kind: change.kind, key: change.key, change: change.type, revision: change.revision });
        },
        {
          onReset: (next) => {
            revision = next;
            send({ type: 'reload', reason: 'The state was restored or reset.' });
            end();
          },
        },
      );
      if (ended) {
        subscription.close();
        return reply;
      }
      cleanups.push(() => subscription.close());
    } catch {
      // The feed no longer reaches back to the client's revision: it starts over from now.
      revision = await this.store.currentRevision();
      send({ type: 'reload', reason: 'The change feed moved past this view: reloading.' });
      end();
      return reply;
    }
    const heartbeat = setInterval(() => {
      if (!raw.writableEnded) raw.write(': ping\n\n');
    }, HEARTBEAT_MS);
    heartbeat.unref();
    cleanups.push(() => clearInterval(heartbeat));
    return reply;
  }

  /** closeAll ends every open stream. */
  closeAll(): void {
    for (const end of [...this.#open]) end();
  }
}
