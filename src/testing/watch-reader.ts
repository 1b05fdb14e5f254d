/**
 * A streaming watch client for tests: reads newline-delimited events as they arrive and lets
 * a test wait (bounded) for a condition on what has been received.
 */

/** WatchEvent is one received line. */
export interface ReceivedEvent {
  readonly type: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of any resource's event object
  readonly object: any;
}

/** OpenWatch is a watch stream being read. */
export interface OpenWatch {
  readonly status: number;
  readonly contentType: string | null;
  /** headers are the response's headers. */
  readonly headers: Headers;
  readonly events: ReceivedEvent[];
  /** ended resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** until waits (at most ~10 s) for `check` to hold on the events so far. */
  until(check: (events: readonly ReceivedEvent[]) => boolean, what: string): Promise<void>;
  close(): void;
}

/** openWatch starts a watch request and reads it in the background. */
export async function openWatch(url: string, token: string, accept = 'application/json'): Promise<OpenWatch> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept }, signal: controller.signal });
  const events: ReceivedEvent[] = [];
  const ended = (async () => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== '') events.push(JSON.parse(line) as ReceivedEvent);
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    headers: response.headers,
    events,
    ended,
    async until(check, what) {
      for (let i = 0; i < 400; i++) {
        if (check(events)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((event) => event.type))}`);
    },
    close() {
      controller.abort();
    },
  };
}
