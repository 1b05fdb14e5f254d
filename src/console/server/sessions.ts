/**
 * Console sessions: a signed-in browser holds an opaque id in an `HttpOnly`, `SameSite=Strict`
 * cookie; the server keeps, per id, the token it signed in with (re-identified on every request,
 * so a token the tokens file no longer grants stops working) and the CSRF token its mutating
 * requests must echo. Kept in this process's memory: a restart signs everyone out.
 *
 * Sessions are bounded per token (each token is one principal): a token signed in more than
 * MAX_SESSIONS_PER_TOKEN times loses its own oldest session, never another token's, so the
 * whole table is bounded by the tokens the server issued.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_EMAIL, type Authenticator, type Principal } from '../../core/auth.ts';
import { ConsoleError } from './errors.ts';
import { checkOrigin, overTls } from './origin.ts';
import { sameSecret } from './ticket.ts';

/** SESSION_COOKIE is the cookie's name. */
export const SESSION_COOKIE = 'fogbank_console';

/** CSRF_HEADER carries the session's CSRF token on mutating requests. */
export const CSRF_HEADER = 'x-fogbank-csrf';

/** MAX_SESSIONS_PER_TOKEN bounds the sessions one token keeps (browsers, tabs signed in apart); its oldest goes first. */
export const MAX_SESSIONS_PER_TOKEN = 32;

/** Session is one signed-in browser. */
export interface Session {
  readonly id: string;
  readonly token: string;
  readonly csrf: string;
}

/** SignedIn is a request's session with the principal its token names now. */
export interface SignedIn {
  readonly session: Session;
  readonly principal: Principal;
  /** admin is true for the admin token: it sees every family and drives the test controls. */
  readonly admin: boolean;
  /** bearer is true when the request carried its token itself (a script), not a session cookie. */
  readonly bearer: boolean;
}

/** Sessions holds the console's sessions. */
export class Sessions {
  readonly #byId = new Map<string, Session>();
  /** Each token's session ids, oldest first. */
  readonly #byToken = new Map<string, Set<string>>();

  constructor(private readonly auth: Authenticator) {}

  /**
   * open starts a session for a token the server issued (or throws 401) and sets its cookie
   * (`Secure` when it came over HTTPS, so the browser never sends it over plain HTTP).
   */
  open(token: string, request: FastifyRequest, reply: FastifyReply, path: string): SignedIn {
    const identity = this.auth.identify(`Bearer ${token}`);
    if (identity.kind !== 'principal') throw new ConsoleError(401, 'The token is not one this server issued.');
    const session: Session = { id: randomBytes(24).toString('base64url'), token, csrf: randomBytes(24).toString('base64url') };
    const own = this.#byToken.get(token) ?? new Set<string>();
    for (const oldest of own) {
      if (own.size < MAX_SESSIONS_PER_TOKEN) break;
      own.delete(oldest);
      this.#byId.delete(oldest);
    }
    own.add(session.id);
    this.#byToken.set(token, own);
    this.#byId.set(session.id, session);
    reply.header('set-cookie', `${SESSION_COOKIE}=${session.id}; Path=${path}; HttpOnly; SameSite=Strict${overTls(request) ? '; Secure' : ''}`);
    return { session, principal: identity.principal, admin: identity.principal.email === ADMIN_EMAIL, bearer: false };
  }

  /** close ends a session and clears its cookie. */
  close(signedIn: SignedIn, request: FastifyRequest, reply: FastifyReply, path: string): void {
    if (signedIn.bearer) throw new ConsoleError(400, 'There is no console session to end: this request carries its token itself.');
    this.#forget(signedIn.session);
    reply.header('set-cookie', `${SESSION_COOKIE}=; Path=${path}; HttpOnly; SameSite=Strict${overTls(request) ? '; Secure' : ''}; Max-Age=0`);
  }

  /** size is how many sessions are kept (all tokens together). */
  get size(): number {
    return this.#byId.size;
  }

  #forget(session: Session): void {
    this.#byId.delete(session.id);
    const own = this.#byToken.get(session.token);
    own?.delete(session.id);
    if (own?.size === 0) this.#byToken.delete(session.token);
  }

  /**
   * require finds the request's session (401 without one) with its principal. A request may
   * instead carry its token in `Authorization: Bearer` as the admin API's do: a browser never
   * sends that header across origins by itself, so such a request needs no CSRF token.
   */
  require(request: FastifyRequest): SignedIn {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const identity = this.auth.identify(authorization);
      if (identity.kind === 'anonymous') throw new ConsoleError(401, 'The Authorization header must be Bearer <token>.');
      if (identity.kind === 'unknown-token') throw new ConsoleError(401, 'The token is not one this server issued.');
      return { session: { id: '', token: '', csrf: '' }, principal: identity.principal, admin: identity.principal.email === ADMIN_EMAIL, bearer: true };
    }
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const session = id === undefined ? undefined : this.#byId.get(id);
    if (session === undefined) throw new ConsoleError(401, 'Sign in to the console first: open the link the banner printed, or send a token.');
    const identity = this.auth.identify(`Bearer ${session.token}`);
    if (identity.kind !== 'principal') {
      this.#forget(session);
      throw new ConsoleError(401, 'The token this session signed in with is no longer granted: sign in again.');
    }
    return { session, principal: identity.principal, admin: identity.principal.email === ADMIN_EMAIL, bearer: false };
  }

  /** find is the request's session, or undefined without a valid one. */
  find(request: FastifyRequest): SignedIn | undefined {
    try {
      return this.require(request);
    } catch (error) {
      if (error instanceof ConsoleError && error.httpStatus === 401) return undefined;
      throw error;
    }
  }

  /** requireAdmin is `require` for the admin's views (403 for anyone else). */
  requireAdmin(request: FastifyRequest): SignedIn {
    const signedIn = this.require(request);
    if (!signedIn.admin) throw new ConsoleError(403, `${signedIn.principal.email} may not use this view: it takes the admin token.`);
    return signedIn;
  }

  /** requireMutation is `require` plus the checks of a state-changing request: same origin, and the session's CSRF token. */
  requireMutation(request: FastifyRequest, admin: boolean): SignedIn {
    const signedIn = admin ? this.requireAdmin(request) : this.require(request);
    if (signedIn.bearer) return signedIn;
    checkOrigin(request);
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !sameSecret(sent, signedIn.session.csrf))
      throw new ConsoleError(403, `A console change needs the session's CSRF token in the ${CSRF_HEADER} header.`);
    return signedIn;
  }
}

/** cookieValue reads one cookie from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
