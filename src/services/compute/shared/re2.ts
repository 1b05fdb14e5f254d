import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/**
 * RE2 for every user-supplied pattern compute evaluates (list filters, rule `matches()`): the real
 * service runs RE2, whose matching time is linear in the input, so no pattern can stall the event
 * loop the way a backtracking JavaScript RegExp can (`(.|.)*Q`).
 */

/** Re2Pattern is a compiled RE2 pattern. */
export interface Re2Pattern {
  /** fullMatch is true when the whole of `text` matches (RE2::FullMatch; compute filters are implicitly anchored). */
  fullMatch(text: string): boolean;
  /** How many capturing groups the pattern has. */
  readonly captureGroups: number;
}

/** Re2SyntaxError is a pattern RE2 rejects; `reason` is RE2's words (`missing closing ): (?:a`). */
export class Re2SyntaxError extends Error {
  override readonly name = 'Re2SyntaxError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Re2Options are the RE2 flags compute uses. */
export interface Re2Options {
  readonly caseInsensitive?: boolean;
  /** `.` also matches a newline. */
  readonly dotAll?: boolean;
}

/** compileRe2 compiles an RE2 pattern or throws Re2SyntaxError. */
export function compileRe2(pattern: string, options: Re2Options = {}): Re2Pattern {
  const flags = (options.caseInsensitive === true ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll === true ? RE2JS.DOTALL : 0);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) throw new Re2SyntaxError(error.input === null ? error.error : `${error.error}: ${error.input}`);
    // Anything else the engine refuses (a program too large to build) is the pattern's fault too.
    if (error instanceof RE2JSException) throw new Re2SyntaxError(error.message.replace(/^error parsing regexp: /, ''));
    throw error;
  }
  return { fullMatch: (text) => compiled.matches(text), captureGroups: compiled.groupCount() };
}

/** quoteRe2 escapes a literal so it matches only itself. */
export function quoteRe2(literal: string): string {
  return RE2JS.quote(literal);
}
