/**
 * The page's calls to the console API: same-origin JSON, the session cookie sent by the browser,
 * and the CSRF token (learnt from the session) on every change.
 */

/** BASE is the console API's address. */
export const BASE = '/_fogbank/console/api';

/** Session is who is signed in. */
export interface Session {
  readonly principal: string;
  readonly admin: boolean;
  readonly csrf: string;
}

let csrf = '';

/** ApiProblem is an error answer, with the server's message. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** setSession remembers the CSRF token of the signed-in session. */
export function setSession(session: Session | undefined): void {
  csrf = session?.csrf ?? '';
}

/** call sends one request and reads its JSON answer (undefined for 204); an error answer throws ApiProblem. */
export async function call<T>(method: string, path: string, body?: unknown, type = 'application/json'): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-fogbank-csrf'] = csrf;
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    headers['content-type'] = type;
    payload = type === 'application/json' ? JSON.stringify(body) : (body as BodyInit);
  }
  const response = await fetch(`${BASE}${path}`, { method, headers, credentials: 'same-origin', ...(payload === undefined ? {} : { body: payload }) });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const message = (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? `${response.status} ${response.statusText}`;
    throw new ApiProblem(response.status, message);
  }
  return parsed as T;
}

/** path joins encoded segments. */
export function path(...segments: readonly string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment)}`).join('');
}
