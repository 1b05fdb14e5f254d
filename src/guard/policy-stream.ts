/**
 * The guard's line to fogbank: `GET /_fogbank/securityPolicies:follow?policy=NAME` as an event
 * stream (server-sent events), which fogbank feeds from the store's change feed, so a rule
 * changed by gcloud reaches the guard as it commits, with no polling. Events: `policy` (the
 * policy's wire form), `deleted`, `clock` (a heartbeat with fogbank's time). When the stream
 * breaks the guard keeps what it last had, says so once, and reconnects with a growing pause.
 */
import { type ClientRequest, request as httpRequest } from 'node:http';

/** PolicyEvent is one event of the stream. */
export type PolicyEvent =
  | { readonly kind: 'policy'; readonly now: number; readonly policy: Readonly<Record<string, unknown>> }
  | { readonly kind: 'deleted'; readonly now: number }
  /** detached: the backend service followed has no policy attached now (`--backend-service`). */
  | { readonly kind: 'detached'; readonly now: number }
  | { readonly kind: 'clock'; readonly now: number };

/** StreamTarget is where to follow which policy. */
export interface StreamTarget {
  /** fogbank's base URL, `http://127.0.0.1:8780`. */
  readonly url: string;
  readonly token: string | undefined;
  readonly policy: string;
  /** backendService, when given, is followed instead: the policy attached to it now (`fogbank guard --backend-service`). */
  readonly backendService?: string;
}

/** StreamHandlers hear the events, and the stream's troubles. */
export interface StreamHandlers {
  event(event: PolicyEvent): void;
  /** refused is an answer other than the stream (a 400 for a bad name, a 401 for a bad token): not worth retrying. */
  refused(status: number, message: string): void;
  /** lost is the stream breaking (or never connecting): `reason` in words. Called once per outage. */
  lost(reason: string): void;
  /** restored is the stream back after an outage. */
  restored(): void;
}

/** SILENCE_MS is how long without a byte (heartbeats come every 5 s) before the stream counts as dead. */
const SILENCE_MS = 15_000;
/** RETRY_MS are the pauses between reconnection attempts, the last repeated. */
const RETRY_MS = [100, 250, 500, 1000, 2000, 5000];

/** parseEvents splits server-sent-event text into complete events, returning them and the unfinished rest. */
export function parseEvents(buffer: string): { readonly events: { readonly event: string; readonly data: string }[]; readonly rest: string } {
  const events: { event: string; data: string }[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

/** toPolicyEvent reads one event, or undefined for one the guard does not know. */
export function toPolicyEvent(event: string, data: string): PolicyEvent | undefined {
  let parsed: { now?: unknown; policy?: unknown };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return undefined;
  }
  const now = typeof parsed.now === 'string' ? Date.parse(parsed.now) : Number.NaN;
  if (Number.isNaN(now)) return undefined;
  if (event === 'policy' && typeof parsed.policy === 'object' && parsed.policy !== null)
    return { kind: 'policy', now, policy: parsed.policy as Record<string, unknown> };
  if (event === 'deleted') return { kind: 'deleted', now };
  if (event === 'detached') return { kind: 'detached', now };
  if (event === 'clock') return { kind: 'clock', now };
  return undefined;
}

/** PolicyStream follows one policy until closed, reconnecting as needed. */
export class PolicyStream {
  readonly #target: StreamTarget;
  readonly #handlers: StreamHandlers;
  #request: ClientRequest | undefined;
  #retry: NodeJS.Timeout | undefined;
  #silence: NodeJS.Timeout | undefined;
  #attempt = 0;
  #down = false;
  #closed = false;

  constructor(target: StreamTarget, handlers: StreamHandlers) {
    this.#target = target;
    this.#handlers = handlers;
  }

  /** open connects (and keeps reconnecting until close). */
  open(): void {
    if (this.#closed) return;
    const { backendService } = this.#target;
    const query = backendService === undefined ? `policy=${encodeURIComponent(this.#target.policy)}` : `backendService=${encodeURIComponent(backendService)}`;
    const path = `/_fogbank/securityPolicies:follow?${query}`;
    const request = httpRequest(`${this.#target.url}${path}`, {
      headers: { accept: 'text/event-stream', ...(this.#target.token === undefined ? {} : { authorization: `Bearer ${this.#target.token}` }) },
    });
    this.#request = request;
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk.length + text.length < 65_536 ? chunk : ''));
        response.on('end', () => {
          let message = `HTTP ${response.statusCode}`;
          try {
            message = String((JSON.parse(text) as { error?: { message?: unknown } }).error?.message ?? message);
          } catch {
            // Not the admin API's JSON: keep the status.
          }
          const status = response.statusCode ?? 0;
          if (status === 400 || status === 401 || status === 403) this.#handlers.refused(status, message);
          else this.#broken(`fogbank answered ${status}: ${message}`, request);
        });
        return;
      }
      let buffer = '';
      response.setEncoding('utf8');
      this.#watchSilence(request);
      response.on('data', (chunk: string) => {
        this.#watchSilence(request);
        const { events, rest } = parseEvents(buffer + chunk);
        buffer = rest;
        for (const { event, data } of events) {
          const parsed = toPolicyEvent(event, data);
          if (parsed === undefined) continue;
          this.#attempt = 0;
          if (this.#down) {
            this.#down = false;
            this.#handlers.restored();
          }
          this.#handlers.event(parsed);
        }
      });
      response.on('end', () => this.#broken('fogbank ended the policy stream', request));
      response.on('error', (error) => this.#broken(error.message, request));
    });
    request.on('error', (error: NodeJS.ErrnoException) => this.#broken(`cannot reach fogbank at ${this.#target.url}: ${error.code ?? error.message}`, request));
    request.end();
  }

  /** close stops following. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearTimeout(this.#silence);
    this.#request?.destroy();
  }

  #watchSilence(request: ClientRequest): void {
    clearTimeout(this.#silence);
    this.#silence = setTimeout(() => this.#broken(`no word from fogbank at ${this.#target.url} for ${SILENCE_MS / 1000} s`, request), SILENCE_MS);
    this.#silence.unref();
  }

  /** #broken handles the end of `request`'s stream (a stale request's late events are ignored). */
  #broken(reason: string, request: ClientRequest): void {
    if (this.#closed || request !== this.#request) return;
    clearTimeout(this.#silence);
    this.#request = undefined;
    request.destroy();
    if (!this.#down) {
      this.#down = true;
      this.#handlers.lost(reason);
    }
    const pause = RETRY_MS[Math.min(this.#attempt++, RETRY_MS.length - 1)]!;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => this.open(), pause);
  }
}
