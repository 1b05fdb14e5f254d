/**
 * `GET /_fogbank/requests`: the request journal, newest first, filtered; with
 * `Accept: text/event-stream` it follows new requests live (one `data:` line of JSON per request)
 * until the client leaves or the server closes. `POST` appends decisions made outside the server
 * (`fogbank guard`'s, family `guard`).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../../core/control-plane.ts';
import { ControlError } from './errors.ts';
import { readJournalAppend } from './journal-append-body.ts';
import { readRequestsQuery } from './requests-query.ts';

/** LiveStreams are the open followers of the journal, ended when the server closes. */
export interface LiveStreams {
  closeAll(): void;
}

/** FAMILY_NAMES are the journaled families a filter may name (the control family's own requests are not journaled; `guard` is fogbank guard's decisions). */
const FAMILY_NAMES = ['compute', 'cluster', 'mail', 'publisher', 'discovery', 'guard'];

/** registerRequestRoutes adds the journal's route and returns its live streams. */
export function registerRequestRoutes(app: FastifyInstance, control: ControlPlane): LiveStreams {
  const open = new Set<ServerResponse>();
  app.get('/_fogbank/requests', async (request, reply) => {
    const filter = readRequestsQuery(request.query as Record<string, unknown>, FAMILY_NAMES);
    if (filter instanceof ControlError) throw filter;
    const reader = control.requests;
    if (!/\btext\/event-stream\b/i.test(request.headers.accept ?? '')) return { requests: await reader.read(filter) };
    await reader.ready();
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // A comment first: the client knows it is following before any request arrives.
    raw.write(': following the request journal\n\n');
    open.add(raw);
    const stop = reader.journal.subscribe((record) => {
      const entry = reader.entryOf(record, filter.bodies === true);
      if (reader.matches(record, entry, filter)) raw.write(`data: ${JSON.stringify(entry)}\n\n`);
    });
    const end = (): void => {
      stop();
      open.delete(raw);
      if (!raw.writableEnded) raw.end();
    };
    raw.once('close', end);
    request.raw.once('close', end);
    return reply;
  });
  // Decisions made outside the server (fogbank guard), journaled as family `guard`.
  app.post('/_fogbank/requests', async (request, reply) => {
    const records = readJournalAppend(request.body, control.clock.now());
    if (records instanceof ControlError) throw records;
    for (const record of records) control.requests.journal.record(record);
    return reply.code(201).send({ appended: records.length });
  });
  return {
    closeAll() {
      for (const raw of [...open]) raw.end();
    },
  };
}
