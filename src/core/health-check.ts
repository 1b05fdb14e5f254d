import type { ServerResponse } from 'node:http';
import type { Store } from '../store/store.ts';

/** HEALTH_PATH is core's own health check, outside every family. */
export const HEALTH_PATH = '/healthz';

/**
 * isHealthCheck is true for `GET` or `HEAD /healthz` (with or without a trailing slash or a query);
 * any other method on it is an unknown path, which no family owns (core's neutral answer).
 */
export function isHealthCheck(method: string | undefined, url: string): boolean {
  if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith(HEALTH_PATH)) return false;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path === HEALTH_PATH || path === `${HEALTH_PATH}/`;
}

/**
 * answerHealthCheck says whether this replica can serve: 200 `{"status":"ok"}` with the store's
 * state, or 503 `unavailable` when its database cannot be reached (load balancers take the
 * replica out of rotation on that).
 */
export async function answerHealthCheck(store: Store, response: ServerResponse): Promise<number> {
  const health = await store.health().catch((error: unknown) => ({ backend: store.backend, ok: false, detail: String(error) }));
  const status = health.ok ? 200 : 503;
  const body = JSON.stringify({ status: health.ok ? 'ok' : 'unavailable', store: health });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
  // Node leaves the body out of an answer to HEAD.
  response.end(body);
  return status;
}
