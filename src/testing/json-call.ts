/** JsonAnswer is an answer read as the tests assert on it: status, the JSON body (undefined when empty), the headers. */
export interface JsonAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the members of the JSON answers they assert on by their documented shape.
  readonly body: any;
  readonly headers: Record<string, string>;
}

/** JsonCall sends one request with an optional JSON body (a string is sent as it is) and reads the answer. */
export type JsonCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<JsonAnswer>;

/**
 * jsonCaller is a JsonCall against the server at the URL `baseUrl()` gives (read at each call, so a
 * test can make its caller before its server starts), sending `defaultHeaders()` unless a call names
 * its own headers.
 */
export function jsonCaller(baseUrl: () => string, defaultHeaders: () => Record<string, string>): JsonCall {
  return async (method, path, body, headers) => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { ...(headers ?? defaultHeaders()), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: Object.fromEntries(response.headers) };
  };
}
