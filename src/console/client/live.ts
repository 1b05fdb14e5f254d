/**
 * The page's one live stream: an EventSource on the console's stream. The browser reconnects by
 * itself and sends the last event id it saw (`Last-Event-ID`), from which the server replays
 * exactly what was missed; a `reload` event means it could not, so every view refetches.
 */
import { BASE } from './api.ts';

/** LiveEvent is one event of the stream (see src/console/server/stream.ts). */
export type LiveEvent =
  | { readonly type: 'change'; readonly kind: string; readonly key: string; readonly change: string; readonly revision: number }
  | { readonly type: 'request'; readonly seq: number; readonly entry: JournalEntry }
  | { readonly type: 'reload'; readonly reason: string };

/** JournalEntry is one answered request (the admin API's shape). */
export interface JournalEntry {
  readonly time: string;
  readonly family: string;
  readonly method: string;
  readonly principal: string | null;
  readonly status: number;
  readonly latencyMs: number;
  readonly fault: unknown;
  readonly httpMethod: string;
  readonly path: string;
}

type Listener = (event: LiveEvent) => void;

const listeners = new Set<Listener>();
let source: EventSource | undefined;

/** connected is true while the stream is open (the page shows it). */
export let connected = false;
const statusListeners = new Set<(open: boolean) => void>();

/** startLive opens the stream once signed in. */
export function startLive(): void {
  if (source !== undefined) return;
  source = new EventSource(`${BASE}/stream`);
  source.onopen = () => setStatus(true);
  source.onerror = () => setStatus(false);
  source.onmessage = (message) => {
    let event: LiveEvent;
    try {
      event = JSON.parse(message.data) as LiveEvent;
    } catch {
      return;
    }
    for (const listener of listeners) listener(event);
  };
}

/** stopLive closes the stream (on sign-out). */
export function stopLive(): void {
  source?.close();
  source = undefined;
  setStatus(false);
}

/** onLive hears every event; the result stops it. */
export function onLive(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** onStatus hears the stream open and close. */
export function onStatus(listener: (open: boolean) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}

function setStatus(open: boolean): void {
  connected = open;
  for (const listener of statusListeners) listener(open);
}
