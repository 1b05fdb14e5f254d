import { compileRe2, Re2SyntaxError } from '../shared/re2.ts';

/**
 * checkRegex validates a regular expression literal given to `matches()` the way the service
 * does: it must compile as RE2 (the service's engine, so exactly its syntax: no lookaround, no
 * backreferences, `\A`, `(?i)`, POSIX classes accepted) and have no capturing groups. It returns
 * the problem in the real service's words (`Invalid regular expression: P, Capture Groups are not
 * allowed.`; a syntax error gives RE2's reason, e.g. `missing closing ): (?:a`), or undefined
 * when the pattern is acceptable.
 */
export function checkRegex(pattern: string): string | undefined {
  const problem = regexProblem(pattern);
  return problem === undefined ? undefined : `Invalid regular expression: ${pattern}, ${problem}`;
}

function regexProblem(pattern: string): string | undefined {
  try {
    const compiled = compileRe2(pattern);
    return compiled.captureGroups > 0 ? 'Capture Groups are not allowed.' : undefined;
  } catch (error) {
    if (error instanceof Re2SyntaxError) return `${error.reason}.`;
    throw error;
  }
}
