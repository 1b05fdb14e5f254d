/**
 * The one place where the spec's neutral identifiers meet the real services' ones.
 *
 * The interface spec replaces brand words with neutral ones (`EDGEGUARD`, `/mail/v1`,
 * `/publisher/v3`, `{scope_base}/publisher`); real clients send and parse the real ones
 * (`CLOUD_ARMOR`, `/gmail/v1`, `/androidpublisher/v3`, `…/auth/androidpublisher`). fogbank
 * accepts both as the same value, stores the real (canonical) spelling, answers in the spelling
 * the client used, and uses the real one when the client gave none. This is the mechanism; each
 * family keeps its own terms once, in its `identifiers.ts`, and declares its OAuth scopes to core
 * (`ServiceDefinition.scopes`) so the tokens file may use either spelling.
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

/** REAL_SCOPE_BASE is the common prefix of Google OAuth scope identifiers (the spec's `{scope_base}`). */
export const REAL_SCOPE_BASE = 'https://www.googleapis.com/auth';
