/**
 * Bearer-token authentication shared by every API family. A token maps to a principal with an
 * email, OAuth scopes and IAM-style permissions; the admin token holds every scope and
 * permission. Families decide which scopes and permissions a method needs and phrase the
 * failures in their own dialect; this module only answers "who is this" and "may they".
 */

import { REAL_SCOPE_BASE, type Term, Vocabulary } from './identifiers.ts';

/** SCOPE_BASE is the common prefix of OAuth scope identifiers. */
export const SCOPE_BASE = REAL_SCOPE_BASE;

/** TokenGrant is one entry of the tokens file. */
export interface TokenGrant {
  readonly token: string;
  readonly email: string;
  /** Full scope URLs, or short names relative to SCOPE_BASE (`compute`, `cloud-platform`). */
  readonly scopes: readonly string[];
  /** Permission names; a trailing `*` matches a prefix (`compute.instanceTemplates.*`), `*` alone matches all. */
  readonly permissions: readonly string[];
  /** The app packages the principal may publish (publisher family); absent means any package. */
  readonly apps?: readonly string[];
  /** Group memberships (the cluster API's user groups); optional in the file. */
  readonly groups?: readonly string[];
}

/**
 * ScopeNames reads scope names as grants and requirements write them: a short name expands
 * against SCOPE_BASE, and either spelling of a scope the families declared
 * (`ServiceDefinition.scopes`) reads as the real one, so `mail.send` and `gmail.send` are one grant.
 */
export class ScopeNames {
  readonly #spellings: Vocabulary;
  constructor(terms: readonly Term[] = []) {
    this.#spellings = new Vocabulary(terms);
  }

  /** expand turns a scope name into its full URL, in the real spelling. */
  expand(scope: string): string {
    return this.#spellings.canonical(scope.includes('://') || scope === '*' ? scope : `${SCOPE_BASE}/${scope}`);
  }
}

/** Principal is an authenticated caller. */
export class Principal {
  readonly #scopes: ReadonlySet<string>;
  readonly #exact: ReadonlySet<string>;
  readonly #prefixes: readonly string[];
  readonly #names: ScopeNames;
  constructor(
    readonly email: string,
    scopes: readonly string[] | 'all',
    permissions: readonly string[] | 'all',
    /** Group memberships, as the tokens file lists them. */
    readonly groups: readonly string[] = [],
    /** The app packages the principal may publish; undefined means any package. */
    readonly apps?: readonly string[],
    names: ScopeNames = new ScopeNames(),
  ) {
    this.#names = names;
    this.#scopes = new Set(scopes === 'all' ? ['*'] : scopes.map((scope) => names.expand(scope)));
    const perms = permissions === 'all' ? ['*'] : permissions;
    this.#exact = new Set(perms.filter((p) => !p.endsWith('*')));
    this.#prefixes = perms.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  }

  /** hasAnyScope is true when the token carries at least one of `scopes` (full URLs). */
  hasAnyScope(scopes: readonly string[]): boolean {
    if (this.#scopes.has('*')) return true;
    return scopes.some((scope) => this.#scopes.has(this.#names.expand(scope)));
  }

  /** hasPermission is true when a grant covers `permission`. */
  hasPermission(permission: string): boolean {
    if (this.#exact.has(permission)) return true;
    return this.#prefixes.some((prefix) => permission.startsWith(prefix));
  }
}

/** Identity is the outcome of reading a request's credentials. */
export type Identity = { readonly kind: 'anonymous' } | { readonly kind: 'unknown-token' } | { readonly kind: 'principal'; readonly principal: Principal };

const UNKNOWN_TOKEN: Identity = Object.freeze({ kind: 'unknown-token' });
const principalIdentity = (principal: Principal): Identity => Object.freeze({ kind: 'principal', principal });

/** ADMIN_EMAIL is the principal the admin token stands for. */
export const ADMIN_EMAIL = 'admin@fogbank.local';

/** Authenticator resolves bearer tokens to principals. */
export class Authenticator {
  /** The identity of each known token, made once (a lookup per request allocates nothing). */
  readonly #byToken = new Map<string, Identity>();
  readonly #listedApps = new Set<string>();
  /** adminToken is the token of the admin principal (the console's one-time sign-in link is derived from it). */
  readonly adminToken: string;

  /** `scopes` are the families' scopes in both spellings (ServiceDefinition.scopes). */
  constructor(adminToken: string, grants: readonly TokenGrant[] = [], scopes: readonly Term[] = []) {
    this.adminToken = adminToken;
    const names = new ScopeNames(scopes);
    for (const grant of grants) {
      this.#byToken.set(grant.token, principalIdentity(new Principal(grant.email, grant.scopes, grant.permissions, grant.groups ?? [], grant.apps, names)));
      for (const app of grant.apps ?? []) this.#listedApps.add(app);
    }
    this.#byToken.set(adminToken, principalIdentity(new Principal(ADMIN_EMAIL, 'all', 'all')));
  }

  /** listsApp is true when some principal's app list names the package (so it exists, for the publisher's 404 vs 403). */
  listsApp(packageName: string): boolean {
    return this.#listedApps.has(packageName);
  }

  /** identify reads an `Authorization` header (`Bearer TOKEN`) or an `access_token` query value. */
  identify(authorization: string | undefined, accessToken?: string): Identity {
    let token = accessToken;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      token = match?.[1];
      if (token === undefined) return { kind: 'unknown-token' };
    }
    if (token === undefined || token === '') return { kind: 'anonymous' };
    return this.#byToken.get(token) ?? UNKNOWN_TOKEN;
  }
}
