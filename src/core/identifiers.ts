/**
 * The one place where the spec's neutral identifiers meet the real services' ones.
 *
 * The interface spec replaces brand words with neutral ones (`EDGEGUARD`, `/mail/v1`,
 * `/publisher/v3`, `{scope_base}/publisher`); real clients send and parse the real ones
 * (`CLOUD_ARMOR`, `/gmail/v1`, `/androidpublisher/v3`, `…/auth/androidpublisher`). fogbank
 * accepts both as the same value, stores the real (canonical) spelling, answers in the spelling
 * the client used, and uses the real one when the client gave none. Every family reads its
 * vocabularies from here, so the mapping is never written twice.
 */

/** Spelling names which vocabulary a client used: the real service's or the spec's neutral one. */
export type Spelling = 'real' | 'spec';

/** Term is one identifier in both spellings. */
export interface Term {
  readonly real: string;
  readonly spec: string;
}

/** Reading is a value recognised by a vocabulary: its canonical (real) spelling and the spelling used. */
export interface Reading {
  readonly canonical: string;
  readonly spelling: Spelling;
}

/** Vocabulary is a set of terms of one kind (an enum's values, path prefixes, scopes). */
export class Vocabulary {
  readonly #byReal = new Map<string, Term>();
  readonly #bySpec = new Map<string, Term>();

  constructor(readonly terms: readonly Term[]) {
    for (const term of terms) {
      this.#byReal.set(term.real, term);
      this.#bySpec.set(term.spec, term);
    }
  }

  /** read recognises either spelling; undefined when the value is in neither. */
  read(value: string): Reading | undefined {
    const real = this.#byReal.get(value);
    if (real !== undefined) return { canonical: real.real, spelling: 'real' };
    const spec = this.#bySpec.get(value);
    if (spec !== undefined) return { canonical: spec.real, spelling: 'spec' };
    return undefined;
  }

  /** canonical maps either spelling to the real one; a value in neither is returned unchanged. */
  canonical(value: string): string {
    return this.read(value)?.canonical ?? value;
  }

  /** spell writes a canonical value in the requested spelling (the real one by default); unknown values pass through. */
  spell(canonical: string, spelling: Spelling = 'real'): string {
    if (spelling === 'real') return canonical;
    return this.#byReal.get(canonical)?.spec ?? canonical;
  }

  /** has is true when the value is a term in either spelling. */
  has(value: string): boolean {
    return this.read(value) !== undefined;
  }

  /** realValues lists the canonical spellings, in the order the terms were given. */
  realValues(): string[] {
    return this.terms.map((term) => term.real);
  }
}

/** spellingOfAny is the spelling of the first value a vocabulary recognises, or undefined when none is recognised. */
export function spellingOfAny(vocabulary: Vocabulary, values: readonly (string | undefined)[]): Spelling | undefined {
  for (const value of values) {
    if (value === undefined) continue;
    const reading = vocabulary.read(value);
    if (reading !== undefined) return reading.spelling;
  }
  return undefined;
}

/** SECURITY_POLICY_TYPES is compute's `SecurityPolicy.type` enum: CLOUD_ARMOR is what the spec calls EDGEGUARD. */
export const SECURITY_POLICY_TYPES = new Vocabulary([
  { real: 'CLOUD_ARMOR', spec: 'EDGEGUARD' },
  { real: 'CLOUD_ARMOR_EDGE', spec: 'EDGEGUARD_EDGE' },
  { real: 'CLOUD_ARMOR_NETWORK', spec: 'EDGEGUARD_NETWORK' },
  { real: 'CLOUD_ARMOR_INTERNAL_SERVICE', spec: 'EDGEGUARD_INTERNAL_SERVICE' },
]);

/** SECURITY_PRODUCT names the security-policy product in prose (error texts use the real words). */
export const SECURITY_PRODUCT: Term = { real: 'Cloud Armor', spec: 'EDGEGUARD' };

/** API_PATHS maps the spec's neutral API base paths to the ones real client libraries call. */
export const API_PATHS = new Vocabulary([
  { real: '/gmail/v1', spec: '/mail/v1' },
  { real: '/androidpublisher/v3', spec: '/publisher/v3' },
]);

/** REAL_SCOPE_BASE is the common prefix of Google OAuth scope identifiers (the spec's `{scope_base}`). */
export const REAL_SCOPE_BASE = 'https://www.googleapis.com/auth';

/** FULL_MAILBOX_SCOPE is the mail API's full-access scope, which has no `{scope_base}` form. */
export const FULL_MAILBOX_SCOPE = 'https://mail.google.com/';

/**
 * SCOPES maps the spec's neutral scope names (`{scope_base}/mail.send`, written here with the
 * real base) to the real ones. Short names in the tokens file expand against REAL_SCOPE_BASE
 * first, then read through this vocabulary, so `mail.send` and `gmail.send` are one grant.
 */
export const SCOPES = new Vocabulary(
  [
    ['gmail.modify', 'mail.modify'],
    ['gmail.compose', 'mail.compose'],
    ['gmail.addons.current.action.compose', 'mail.addons.current.action.compose'],
    ['gmail.send', 'mail.send'],
    ['gmail.readonly', 'mail.readonly'],
    ['gmail.labels', 'mail.labels'],
    ['gmail.metadata', 'mail.metadata'],
    ['gmail.insert', 'mail.insert'],
    ['androidpublisher', 'publisher'],
  ].map(([real, spec]) => ({ real: `${REAL_SCOPE_BASE}/${real!}`, spec: `${REAL_SCOPE_BASE}/${spec!}` })),
);

/** DEFAULT_API_DOMAIN is the cluster API's group-name suffix (the spec's `{api_domain}`) that real clients hard-code. */
export const DEFAULT_API_DOMAIN = 'k8s.io';

/**
 * apiGroupVocabulary maps cluster API group names under a configured domain to the real
 * `k8s.io` ones (`rbac.authorization.example.io` ↔ `rbac.authorization.k8s.io`). With the
 * default domain both spellings are the same.
 */
export function apiGroupVocabulary(groupPrefixes: readonly string[], domain: string = DEFAULT_API_DOMAIN): Vocabulary {
  return new Vocabulary(groupPrefixes.map((prefix) => ({ real: `${prefix}.${DEFAULT_API_DOMAIN}`, spec: `${prefix}.${domain}` })));
}
